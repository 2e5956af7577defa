import { Readable } from 'node:stream';

/**
 * The AWS SDK's stream checks as the Lambda bundles see them (scripts/build-plugins.ts puts this module in the place
 * of @smithy/core's `stream-type-check.js` and the retry middleware's `isStreamingPayload.js`). Same answers, but a
 * web stream is recognised by its tag instead of `typeof ReadableStream` / `instanceof ReadableStream`: reading
 * that global makes Node load its web streams (~4 ms of CPU at a cold start), and the SDK asks on every request and
 * every response, about bodies that are a string and a Node stream here.
 */
const tagOf = (value: unknown): string => Object.prototype.toString.call(value);

export const isReadableStream = (stream: unknown): stream is ReadableStream =>
  (stream as { constructor?: { name?: string } } | null | undefined)?.constructor?.name === 'ReadableStream' ||
  tagOf(stream) === '[object ReadableStream]';

export const isBlob = (blob: unknown): blob is Blob =>
  typeof Blob === 'function' &&
  ((blob as { constructor?: { name?: string } } | null | undefined)?.constructor?.name === Blob.name ||
    blob instanceof Blob);

export const isStreamingPayload = (request: { body?: unknown } | undefined): boolean =>
  request?.body instanceof Readable || isReadableStream(request?.body);
