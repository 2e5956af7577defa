import { api } from './api.ts';
import { LAMBDA_RUNTIME } from './runtime.ts';
import { chat, proxy } from './streaming.ts';

/**
 * The API reference on the API's own host: GET /api/v1/openapi.json, /docs (Scalar's page) and /docs/scalar.js
 * (Scalar's script, brotli-compressed beside the bundle: docs/DEPLOY.md says why it is served here and not from a
 * bucket). The function touches no data: no table link, no secret; it only knows where the proxy and the chat
 * answer, so that the page's "try it" calls their function URLs.
 */
export const docs = new sst.aws.Function('Docs', {
  bundle: 'dist/functions/docs',
  handler: 'index.handler',
  runtime: LAMBDA_RUNTIME,
  architecture: 'arm64',
  memory: '512 MB',
  timeout: '10 seconds',
  environment: { MEMGATE_PROXY_URL: proxy.url, MEMGATE_CHAT_URL: chat.url },
});

export const docsRoutes = ['GET /api/v1/openapi.json', 'GET /docs', 'GET /docs/{file}'] as const;
for (const route of docsRoutes) api.route(route, docs.arn);
