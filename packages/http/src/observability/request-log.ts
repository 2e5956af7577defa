import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Logger } from './logger.ts';

const REQUEST_ID = /^[\w.-]{1,128}$/;

/** The request id a runtime already has for a request (Lambda: the invocation's awsRequestId). */
export type RequestIdOf = (c: Context) => string | undefined;

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
    await next();
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
