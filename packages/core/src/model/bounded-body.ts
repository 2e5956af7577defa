import { MemgateError } from '../errors/index.ts';

/** DESIGN.md section 4: a non-streamed upstream body larger than this is dropped (502). */
export const MAX_UPSTREAM_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Reads a body as UTF-8 text with a running byte count: at most `maxBytes` are ever held, and the rest is cancelled
 * (which closes the upstream connection) as soon as the count crosses it. `complete` says whether the whole body fit.
 */
export async function readUpTo(
  body: AsyncIterable<Uint8Array>,
  maxBytes: number,
): Promise<{ text: string; complete: boolean }> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  let complete = true;
  // Leaving the loop early ends the iteration, which cancels the rest of the body.
  for await (const value of body) {
    if (size + value.byteLength > maxBytes) {
      chunks.push(value.subarray(0, maxBytes - size));
      size = maxBytes;
      complete = false;
      break;
    }
    chunks.push(value);
    size += value.byteLength;
  }
  // Decoded once at the end: one string, not one per chunk.
  return { text: Buffer.concat(chunks, size).toString('utf8'), complete };
}

export function upstreamResponseTooLarge(maxBytes = MAX_UPSTREAM_BODY_BYTES): MemgateError {
  return new MemgateError(
    'upstream_unavailable',
    'upstream_response_too_large',
    `upstream answered with more than ${Math.round(maxBytes / (1024 * 1024))} MB; the answer was dropped`,
  );
}

/**
 * A running count of the characters a streamed answer holds whole (the chat's answer until final_response, route B
 * Responses' text and arguments for their .done events): `hold` returns each delta, and throws
 * upstream_response_too_large once the answer passes what a non-streamed body may be (MAX_UPSTREAM_BODY_BYTES, in
 * characters). An upstream streaming without end grew such an answer to V8's string limit (~750 MB of RSS).
 */
export function heldAnswerLimit(): (delta: string) => string {
  let held = 0;
  return function hold(delta) {
    held += delta.length;
    if (held > MAX_UPSTREAM_BODY_BYTES) throw upstreamResponseTooLarge();
    return delta;
  };
}

/** A whole upstream body as text, or a 502 `upstream_response_too_large` once it crosses `maxBytes`. */
export async function readBoundedText(
  body: AsyncIterable<Uint8Array>,
  maxBytes = MAX_UPSTREAM_BODY_BYTES,
): Promise<string> {
  const { text, complete } = await readUpTo(body, maxBytes);
  if (!complete) throw upstreamResponseTooLarge(maxBytes);
  return text;
}
