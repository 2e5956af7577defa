/**
 * A Request whose body is already in memory whole (the Lambda bundles' own Request: an event's body is a string)
 * may hand it over through this method: `request[BUFFERED_BODY]()` returns the bytes and marks the body read, or
 * undefined when the body is a stream or was read already (then it is read as any other body). Reading it this way
 * skips a WHATWG stream over bytes that never arrive in parts: the first touch of `ReadableStream` loads Node's web
 * streams, ~4 ms of CPU at a Lambda cold start. A registered symbol, so either side can name it.
 */
export const BUFFERED_BODY: unique symbol = Symbol.for('memgate.bufferedBody');

export interface BufferedBodySource {
  [BUFFERED_BODY](): Uint8Array | undefined;
}

/** The body's bytes when `request` holds them in memory and hands them over, else undefined. */
export function bufferedBodyOf(request: Request): Uint8Array | undefined {
  const source = request as Request & Partial<BufferedBodySource>;
  return typeof source[BUFFERED_BODY] === 'function' ? source[BUFFERED_BODY]() : undefined;
}
