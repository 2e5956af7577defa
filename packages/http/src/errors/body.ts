import { invalid, MemgateError } from '@memgate/core';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';

/** DESIGN.md section 7: bodies over 6 MB are refused with 413 in the area's format. */
export const MAX_BODY_BYTES = 6 * 1024 * 1024;

export function limitBody(maxSize = MAX_BODY_BYTES): MiddlewareHandler {
  return bodyLimit({
    maxSize,
    onError: () => {
      throw new MemgateError('payload_too_large', 'payload_too_large', `request body is larger than ${maxSize} bytes`);
    },
  });
}

/** Parses the JSON body; malformed JSON or a non-object is a 400 naming the problem. */
export async function readJsonObject(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === '') throw invalid('request body is empty; expected a JSON object', 'body');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('request body is not valid JSON', 'body');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw invalid('request body must be a JSON object', 'body');
  }
  return value as Record<string, unknown>;
}
