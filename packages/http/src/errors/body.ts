import { invalid, MemgateError } from '@memgate/core';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyTooLarge, readBodyBytes, readBodyText, requestHeader } from '../request/index.ts';
import { tooDeepFieldOf } from './json-depth.ts';
import { parseJsonInSlices } from './json-slices.ts';

/** DESIGN.md section 7: bodies over 6 MB are refused with 413 in the area's format. */
export const MAX_BODY_BYTES = 6 * 1024 * 1024;

/**
 * A declared length over `maxSize` is refused at once; a body without one (chunked) is read now, before the token
 * check, and refused as soon as it passes `maxSize`. The body is read once (`readBodyBytes`): `readJsonObject`
 * gets the same bytes. Undefined (nothing to wait for) unless a chunked body must be read.
 */
export function checkBodyLimit(c: Context, maxSize = MAX_BODY_BYTES): Promise<unknown> | undefined {
  const method = c.req.method;
  if (method === 'GET' || method === 'HEAD') return undefined;
  const length = requestHeader(c, 'content-length');
  if (length !== undefined && requestHeader(c, 'transfer-encoding') === undefined) {
    if (Number.parseInt(length, 10) > maxSize) throw bodyTooLarge(maxSize);
    return undefined;
  }
  return readBodyBytes(c, maxSize);
}

/** Middleware form of `checkBodyLimit`. */
export function limitBody(maxSize = MAX_BODY_BYTES): MiddlewareHandler {
  return async function limitBodySize(c, next) {
    await checkBodyLimit(c, maxSize);
    return next();
  };
}

/**
 * Deepest nesting of arrays and objects a JSON body may have. JSON.parse accepts any depth, but what recurses over
 * the value later (JSON.stringify when a message is counted or forwarded, schema walks) overflows the stack around
 * ten thousand levels: a 500, or a failure after a stream started. Real requests (messages, content parts, tool
 * schemas, metadata) nest a few levels; 64 leaves room for any honest JSON schema.
 */
export const MAX_JSON_DEPTH = 64;

/** `application/json`, or a JSON-based type (`application/problem+json`), parameters such as charset aside. */
export const JSON_MEDIA_TYPE = /^application\/([\w.-]+\+)?json$/i;

/**
 * Every body the API reads is JSON (spec: "All bodies are JSON unless stated otherwise"). A body declared as
 * something else (`text/plain`, a form, `curl -d` without a JSON Content-Type) is a 415 saying what to send, not
 * read as JSON anyway: its sender said it is not. A body with no Content-Type is read as JSON (no client of the
 * OpenAI format sends one without it: the OpenAI SDKs, LangChain and the Vercel AI SDK send application/json).
 * One header read and a short match: nothing that grows with the request.
 */
function requireJsonMediaType(c: Context): void {
  const declared = requestHeader(c, 'content-type');
  if (declared === undefined) return;
  const mediaType = (declared.split(';')[0] as string).trim();
  if (mediaType === '' || JSON_MEDIA_TYPE.test(mediaType)) return;
  throw new MemgateError(
    'unsupported_media_type',
    'unsupported_media_type',
    `Content-Type ${mediaType.slice(0, 100)} is not JSON; send the body as application/json`,
  );
}

/** Parses the JSON body; malformed JSON, nesting deeper than MAX_JSON_DEPTH or a non-object is a 400 naming it. */
export async function readJsonObject(c: Context): Promise<Record<string, unknown>> {
  return (await readJsonText(c)).value;
}

/**
 * `readJsonObject`'s value with the text it was parsed from (the body decoded as UTF-8, a leading BOM dropped), for
 * a proxy that forwards the caller's JSON as written when it changes nothing in it.
 */
export async function readJsonText(c: Context): Promise<{ text: string; value: Record<string, unknown> }> {
  requireJsonMediaType(c);
  const text = await readBodyText(c, MAX_BODY_BYTES);
  if (text.trim() === '') throw invalid('request body is empty; expected a JSON object', 'body');
  // Depth is read from the text, before parsing, in slices (json-depth.ts).
  const tooDeep = await tooDeepFieldOf(text, MAX_JSON_DEPTH);
  if (tooDeep !== undefined) {
    throw invalid(`${tooDeep}: nests arrays or objects deeper than ${MAX_JSON_DEPTH} levels`, tooDeep);
  }
  let value: unknown;
  try {
    // In pieces, other requests running between them: one JSON.parse of 6 MB of distinct keys held the loop ~1 s.
    value = await parseJsonInSlices(text, MAX_JSON_DEPTH);
  } catch {
    throw invalid('request body is not valid JSON', 'body');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid('request body must be a JSON object', 'body');
  }
  return { text, value: value as Record<string, unknown> };
}
