import type { Context, MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import { nodeBindingsOf, requestHeader } from '../request/node.ts';
import type { LogFields, Logger } from './logger.ts';

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
 * caller's (when well-formed), else a new one. On the local server (Hono's Node adapter) the id goes on the Node
 * response, under the headers of whatever response is written (a forwarded upstream id stays), and the line is
 * written once the response has been: its building and its write were on every response's path before it.
 */
export function requestLog(logger: Logger, { requestIdOf }: { requestIdOf?: RequestIdOf } = {}): MiddlewareHandler {
  const logLine = (fields: LogFields) => logger.info('request', fields);
  return async function logRequest(c, next) {
    const started = performance.now();
    const node = nodeBindingsOf(c);
    const given = requestHeader(c, 'x-request-id');
    const requestId = requestIdOf?.(c) ?? (given && REQUEST_ID.test(given) ? given : undefined) ?? crypto.randomUUID();
    // Node's writeHead merges what the response carries over this, so nothing has to look into the response's
    // headers (which makes the adapter build them as a WHATWG Headers and copy them back).
    if (node) node.outgoing.setHeader('x-request-id', requestId);
    else c.header('x-request-id', requestId);
    c.set(REQUEST_ID_KEY as never, requestId as never);
    await next();
    if (!node) echoRequestId(c, requestId);
    let route: string;
    try {
      route = routePath(c, -1);
    } catch {
      route = 'unmatched';
    }
    const fields = {
      requestId,
      method: c.req.method,
      route,
      status: c.res.status,
      latencyMs: Math.round((performance.now() - started) * 100) / 100,
    };
    // A Lambda's line is written before its invocation ends; the Node adapter writes the response after this.
    if (node) setImmediate(logLine, fields);
    else logLine(fields);
  };
}
