import type { serve } from '@hono/node-server';

type Fetch = Parameters<typeof serve>[0]['fetch'];

interface CorsRule {
  methods: string;
  headers: string;
  expose?: string;
}

/**
 * What a browser on another origin may send and read, per area, as the deployment's CORS settings say (infra/api.ts,
 * infra/streaming.ts, infra/mcp.ts): API Gateway and the function URLs answer it there, the local server here.
 */
const MCP: CorsRule = {
  methods: 'GET, POST, DELETE',
  headers: 'authorization, content-type, accept, mcp-protocol-version',
  expose: 'www-authenticate',
};
const STREAMING: CorsRule = {
  methods: 'GET, POST',
  headers: 'authorization, content-type, x-memgate-filter, x-memgate-context, x-memgate-store',
  expose: 'x-memgate-history-kept, x-memgate-history-dropped, x-memgate-context-injected, x-memgate-tokens-saved',
};
const API: CorsRule = { methods: 'GET, POST', headers: 'authorization, content-type' };

function ruleOf(path: string): CorsRule {
  if (path === '/mcp') return MCP;
  if (path.startsWith('/api/v1/proxy/') || path.startsWith('/api/v1/chat/')) return STREAMING;
  return API;
}

/**
 * The local server's CORS, so a browser app on another origin (a dev server on localhost:3000, say) can call it as
 * it can call the deployment: a preflight (OPTIONS with Access-Control-Request-Method) is answered 204, and a request
 * with an Origin may be read by it. The allowance is set on the Node response, so the proxy's streams, written to
 * it directly, carry it too. A request without Origin (every client but a browser's cross-origin call) is untouched.
 */
export function withCors(fetch: Fetch): Fetch {
  return function fetchWithCors(request, env) {
    const outgoing = env?.outgoing;
    if (!outgoing || env.incoming?.headers.origin === undefined) return fetch(request, env);
    const rule = ruleOf(new URL(request.url).pathname);
    outgoing.setHeader('access-control-allow-origin', '*');
    if (request.method === 'OPTIONS' && request.headers.has('access-control-request-method')) {
      outgoing.setHeader('access-control-allow-methods', rule.methods);
      outgoing.setHeader('access-control-allow-headers', rule.headers);
      outgoing.setHeader('access-control-max-age', '3600');
      return new Response(null, { status: 204 });
    }
    if (rule.expose) outgoing.setHeader('access-control-expose-headers', rule.expose);
    return fetch(request, env);
  };
}
