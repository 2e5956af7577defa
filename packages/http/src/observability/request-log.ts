import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from './logger.ts';

const REQUEST_ID = /^[\w.-]{1,128}$/;

/** Where the request log keeps the request's id on the context, for a handler that writes its own response. */
const REQUEST_ID_KEY = 'requestId';

/**
 * The id the request log gives this request (undefined outside it): for a handler that writes the Node response
 * itself (the proxy's streams on the local server), which the log cannot put the id on afterwards.
 */
export function loggedRequestId(c: Context): string | undefined {
  return c.get(REQUEST_ID_KEY as never) as string | undefined;
}

/** The request id a runtime already has for a request (Lambda: the invocation's awsRequestId). */
export type RequestIdOf = (c: Context) => string | undefined;

/**
 * A handler that returns a Response of its own (the proxy's upstream answers) drops the headers set on the context,
 * so the id goes on the final response when it has none; a forwarded upstream id (route A) is left as it is.
 */
function echoRequestId(c: Context, requestId: string): void {
  if (c.res.headers.has('x-request-id')) return;
  try {
    c.res.headers.set('x-request-id', requestId);
  } catch {
    // Immutable headers (a fetched Response): answer with a copy that can carry the id.
    c.res = new Response(c.res.body, c.res);
    c.res.headers.set('x-request-id', requestId);
  }
}

/**
 * Logs one line per request: id, method, route pattern (never the raw path, which may hold a proxy key),
 * status and latency. Echoes the request id in `x-request-id`: the runtime's own when it has one, else the
 * caller's (when well-formed), else a new one.
 */
export function requestLog(logger: Logger, { requestIdOf }: { requestIdOf?: RequestIdOf } = {}): MiddlewareHandler {
  return async function logRequest(c, next) {
    const started = performance.now();
    const given = c.req.header('x-request-id');
    const requestId = requestIdOf?.(c) ?? (given && REQUEST_ID.test(given) ? given : undefined) ?? crypto.randomUUID();
    c.header('x-request-id', requestId);
    c.set(REQUEST_ID_KEY as never, requestId as never);
    await next();
    echoRequestId(c, requestId);
    let route: string;
    try {
      route = routePath(c, -1);
    } catch {
      route = 'unmatched';
    }
    logger.info('request', {
      requestId,
      method: c.req.method,
      route,
      status: c.res.status,
      latencyMs: Math.round((performance.now() - started) * 100) / 100,
    });
  };
}
