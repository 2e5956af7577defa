import { CORS_RULES } from '../packages/http/src/cors/index.ts';
import { lambda } from './functions.ts';

/**
 * DESIGN.md section 5a: the MCP memory tools at `<url>/mcp`, behind their own function URL. The server answers
 * each message with one JSON body, so the URL stays in the default buffered mode; unlike the API Gateway routes,
 * a function URL has no 30 s limit, which a large add_memory with a remote embedder may need.
 */
export const mcp = lambda('Mcp', {
  bundle: 'mcp',
  memory: '1024 MB',
  timeout: '60 seconds',
  url: {
    authorization: 'none',
    cors: { allowOrigins: ['*'], ...CORS_RULES.mcp, maxAge: '60 minutes' },
  },
  // The context functions' secrets: it runs the same context store (embedder, Pinecone, token verification).
  secrets: ['pineconeApiKey', 'embeddingsApiKey', 'authJwtSecret'],
});
