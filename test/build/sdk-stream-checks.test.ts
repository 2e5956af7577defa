import { Readable } from 'node:stream';
import * as smithy from '@smithy/core/serde';
import { describe, expect, it } from 'vitest';
import { isBlob, isReadableStream, isStreamingPayload } from '../../functions/runtime/sdk-stream-checks.ts';

// The AWS SDK's stream checks as the Lambda bundles carry them (scripts/build-plugins.ts, sdkStreamChecks): the same
// answers as the SDK's own, without reading the `ReadableStream` global.
class OwnStream extends ReadableStream<Uint8Array> {}
const values = (): [string, unknown][] => [
  ['a string', '{"TableName":"t"}'],
  ['bytes', new Uint8Array([1, 2])],
  ['a Buffer', Buffer.from('x')],
  ['a Node stream', Readable.from(['x'])],
  ['a web stream', new ReadableStream()],
  ['a subclass of it', new OwnStream()],
  ['a Blob', new Blob(['x'])],
  ['a plain object', { getReader() {} }],
  ['null', null],
  ['undefined', undefined],
];

describe("the Lambda bundles' AWS SDK stream checks", () => {
  it.each(values())('answer as the SDK does for %s', (_name, value) => {
    expect(isReadableStream(value)).toBe(smithy.isReadableStream(value));
    expect(isBlob(value)).toBe(smithy.isBlob(value));
  });

  it('count a Node or web stream body as a streaming payload, and nothing else', () => {
    const streaming = values()
      .filter(([, body]) => isStreamingPayload({ body }))
      .map(([name]) => name);
    expect(streaming).toEqual(['a Node stream', 'a web stream', 'a subclass of it']);
    expect(isStreamingPayload(undefined)).toBe(false);
  });
});
