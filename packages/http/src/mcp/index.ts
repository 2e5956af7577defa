import type { ContextStore } from '@memgate/core';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { Hono } from 'hono';
import { type AuthEnv, authenticate } from '../auth/index.ts';
import type { BaseDeps } from '../deps.ts';
import {
  MAX_BODY_BYTES,
  MAX_JSON_DEPTH,
  parseJsonInSlices,
  respondWithError,
  tooDeepFieldOf,
} from '../errors/index.ts';
import { readBodyText } from '../request/index.ts';
import { createMemoryServer } from './server.ts';

export { MEMORY_TOOLS, type MemoryTool } from './tools.ts';

/** Where the MCP endpoint lives, on the local server and on its own function URL alike. */
export const MCP_PATH = '/mcp';

export interface McpAreaDeps {
  store: ContextStore;
}

/**
 * DESIGN.md section 5a: MCP over Streamable HTTP, stateless. The bearer token is verified before the transport
 * reads a byte of the body, so a request without a valid token never reaches an MCP message. Each POST gets its
 * own server and transport (the SDK's stateless transports serve one request), answered as plain JSON: no tool
 * streams, and a JSON answer passes a buffered Lambda function URL unchanged.
 */
export function createMcpApp(deps: BaseDeps & McpAreaDeps): Hono<AuthEnv> {
  const { verifier, logger, store } = deps;
  const app = new Hono<AuthEnv>();
  app.use(MCP_PATH, authenticate({ verifier }));

  app.post(MCP_PATH, async function handleMcpRequest(c) {
    // The API's own reader, as in every area: straight from the Node request on the local server, the event's bytes
    // in Lambda (no web stream over them), refused with the 413 as soon as it passes the limit.
    const parsed = await parseMessage(await readBodyText(c, MAX_BODY_BYTES));
    if (parsed.refusal) return c.json(parsed.refusal, 400);
    const server = createMemoryServer({ store, principal: c.var.principal, logger });
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
      maxRequestBodySize: MAX_BODY_BYTES,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(c.req.raw, { parsedBody: parsed.message });
    } finally {
      await server.close();
    }
  });

  // Stateless: there is no session to stream notifications on (GET) or to end (DELETE). The spec's answer is 405.
  app.on(['GET', 'DELETE'], MCP_PATH, function refuseSessionRequest(c) {
    c.header('Allow', 'POST');
    const message = `Method not allowed: ${c.req.method} (this server is stateless; send messages with POST)`;
    return c.json({ jsonrpc: '2.0', error: { code: -32000, message }, id: null }, 405);
  });

  app.onError(function handleMcpError(error, c) {
    const response = respondWithError(c, 'mcp', error, logger);
    if (response.status === 401) {
      // RFC 6750: a 401 names the scheme; `invalid_token` when a token was sent and refused.
      const refused = c.req.header('authorization') ? ', error="invalid_token"' : '';
      response.headers.set('WWW-Authenticate', `Bearer realm="memgate"${refused}`);
    }
    return response;
  });
  return app;
}

type JsonRpcRefusal = { jsonrpc: '2.0'; error: { code: number; message: string }; id: string | number | null };

/**
 * The body as JSON, read here rather than by the transport so that its depth is checked before anything walks it:
 * the SDK's message schemas and the tools' argument schemas recurse, and JSON nested thousands of levels deep
 * overflows the stack (DESIGN.md section 4, "Size and time"; MAX_JSON_DEPTH). Refusals are JSON-RPC errors, with
 * the request's id when it has one: -32700 for text that is not JSON (as the SDK answers), -32600 for too deep.
 */
async function parseMessage(text: string): Promise<{ message?: unknown; refusal?: JsonRpcRefusal }> {
  const field = await tooDeepFieldOf(text, MAX_JSON_DEPTH);
  let message: unknown;
  try {
    // In pieces (json-slices.ts); in a message refused as too deep, what lies past MAX_JSON_DEPTH is not read.
    message = await parseJsonInSlices(text, MAX_JSON_DEPTH);
  } catch {
    return { refusal: { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error: Invalid JSON' }, id: null } };
  }
  const crowded = field === undefined ? crowdedObjectOf(message) : undefined;
  if (field === undefined && crowded === undefined) return { message };
  const id = (message as { id?: unknown }).id;
  return {
    refusal: {
      jsonrpc: '2.0',
      error: {
        code: -32600,
        message:
          field !== undefined
            ? `Invalid Request: ${field} nests arrays or objects deeper than ${MAX_JSON_DEPTH} levels`
            : `Invalid Request: ${crowded} holds more than ${MAX_OBJECT_MEMBERS} members`,
      },
      id: typeof id === 'string' || typeof id === 'number' ? id : null,
    },
  };
}

/**
 * The members an object of a message may hold. The SDK's message schemas copy every member of `params`, `_meta` and
 * `arguments`, and the tools' schemas those of `metadata`: 200,000 members held the event loop ~2 s. No tool takes
 * that many; a metadata object the store accepts (64 KB as JSON) cannot hold this many distinct keys.
 */
const MAX_OBJECT_MEMBERS = 10_000;

const isNode = (value: unknown): value is object => typeof value === 'object' && value !== null;

/** Where in `message` (e.g. `params.arguments`) an object holds more than MAX_OBJECT_MEMBERS, or undefined. */
function crowdedObjectOf(message: unknown): string | undefined {
  // Nesting is at most MAX_JSON_DEPTH levels here; each array and object is visited once, other values not at all.
  const pending: [object, string][] = isNode(message) ? [[message, '']] : [];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [value, at] = next;
    if (Array.isArray(value)) {
      value.forEach((item, index) => {
        if (isNode(item)) pending.push([item, `${at}[${index}]`]);
      });
      continue;
    }
    // Counted as they are visited, not listed first: listing 200,000 members took ~130 ms.
    let members = 0;
    for (const key in value) {
      members += 1;
      if (members > MAX_OBJECT_MEMBERS) return at === '' ? 'the message' : at.slice(0, 200);
      const item = (value as Record<string, unknown>)[key];
      if (isNode(item)) pending.push([item, at === '' ? key : `${at}.${key}`]);
    }
  }
  return undefined;
}
