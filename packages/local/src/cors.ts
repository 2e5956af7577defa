import type { serve } from '@hono/node-server';
import { CORS_RULES, type CorsRule } from '@memgate/http/cors/index';

type Fetch = Parameters<typeof serve>[0]['fetch'];

/** A rule as the response headers that say it. */
const headersOf = (rule: CorsRule) => ({
  methods: rule.allowMethods.join(', '),
  headers: rule.allowHeaders.join(', '),
  expose: rule.exposeHeaders.join(', '),
});
const MCP = headersOf(CORS_RULES.mcp);
const STREAMING = headersOf(CORS_RULES.streaming);
const CONTEXT = headersOf(CORS_RULES.context);

function ruleOf(path: string) {
  if (path === '/mcp') return MCP;
  if (path.startsWith('/api/v1/proxy/') || path.startsWith('/api/v1/chat/')) return STREAMING;
  return CONTEXT;
}

/**
 * The local server's CORS, the deployment's rules (CORS_RULES), so a browser app on another origin (a dev server on
 * localhost:3000, say) can call it as it can call AWS: a preflight (OPTIONS with Access-Control-Request-Method) is
 * answered 204, and a request with an Origin may be read by it. The allowance is set on the Node response, so the
 * proxy's streams, written to it directly, carry it too. A request without Origin (every client but a browser's
 * cross-origin call) is untouched.
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
    if (rule.expose !== '') outgoing.setHeader('access-control-expose-headers', rule.expose);
    return fetch(request, env);
  };
}
