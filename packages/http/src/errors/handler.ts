import { MemgateError } from '@memgate/core';
import type { Context, ErrorHandler, NotFoundHandler } from 'hono';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { Logger } from '../observability/logger.ts';
import { type Area, areaOfPath, errorEnvelope, toMemgateError } from './envelopes.ts';

/** Renders `error` in `area`'s envelope. 5xx causes are logged (redacted), never returned. */
export function respondWithError(c: Context, area: Area, thrown: unknown, logger?: Logger): Response {
  const error = toMemgateError(thrown);
  const { status, body } = errorEnvelope(area, error);
  if (status >= 500 && logger) logFailure(logger, thrown, error);
  return c.json(body, status as ContentfulStatusCode);
}

/** Logs the cause of a 5xx (redacted by the logger); the caller only ever sees `error`'s public message. */
export function logFailure(logger: Logger, thrown: unknown, error: MemgateError, message = 'request failed'): void {
  const cause = thrown instanceof MemgateError ? thrown.cause : thrown;
  // A MemgateError raised on purpose (an upstream answer too large, say) has no cause: its code says it all.
  const detail =
    cause === undefined
      ? {}
      : {
          error: cause instanceof Error ? `${cause.name}: ${cause.message}` : String(cause),
          stack: cause instanceof Error ? cause.stack : undefined,
        };
  logger.error(message, { code: error.code, ...detail });
}

/** One `onError` for an area's app. */
export function areaErrorHandler(area: Area, logger?: Logger): ErrorHandler {
  return function handleAreaError(error, c) {
    return respondWithError(c, area, error, logger);
  };
}

/** Top-level `onError`: picks the area from the path. */
export function pathErrorHandler(logger?: Logger): ErrorHandler {
  return function handleError(error, c) {
    return respondWithError(c, areaOfPath(c.req.path), error, logger);
  };
}

export function notFoundHandler(): NotFoundHandler {
  return function handleNotFound(c) {
    const error = new MemgateError('not_found', 'not_found', `no route for ${c.req.method} ${safePath(c.req.path)}`);
    return respondWithError(c, areaOfPath(c.req.path), error);
  };
}

/** Proxy paths carry a target key: never echo them. */
function safePath(path: string): string {
  return path.startsWith('/api/v1/proxy/') ? '/api/v1/proxy/…' : path.slice(0, 200);
}
