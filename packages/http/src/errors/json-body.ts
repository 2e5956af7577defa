import type { Context, MiddlewareHandler } from 'hono';
import { JSON_MEDIA_TYPE, readJsonObject } from './body.ts';

/**
 * What the library's validator should see instead of the whole body (e.g. one message standing in for 100,000
 * checked in slices), or the body itself.
 */
export type PrepareBody = (body: Record<string, unknown>, c: Context) => Promise<Record<string, unknown>>;

/**
 * Route middleware that runs before `@hono/zod-openapi`'s validator, for what a schema cannot do or must not do
 * first: the body (already size-limited by `limitBody`) is read once and refused with the area's messages when it
 * is empty, not JSON, nested deeper than MAX_JSON_DEPTH or not an object, before any schema walks it. A body
 * declared as another type than JSON is a 415 (readJsonText); one with no Content-Type is read as JSON, and the
 * validator, which reads only a body declared as JSON, is told it is the JSON it was just proved to be.
 */
export function jsonBody({ prepare }: { prepare?: PrepareBody } = {}): MiddlewareHandler {
  return async function readJsonBody(c, next) {
    const body = await readJsonObject(c);
    if (!JSON_MEDIA_TYPE.test((c.req.header('content-type') ?? '').split(';')[0]?.trim() ?? '')) {
      c.req.raw.headers.set('content-type', 'application/json');
    }
    const seen = prepare ? await prepare(body, c) : body;
    // The validator reads `c.req.json()`, and Hono's json() parses the cached text every time it is called: a second
    // JSON.parse of a body of up to 6 MB on the event loop. It gets the value read above instead, or the stand-in.
    c.req.json = <T>() => Promise.resolve(seen as T);
    await next();
  };
}
