import type { ChatModel, RawCompletionResponse } from '@memgate/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { forwardCompletion } from './forward.ts';

const request = { model: 'm', messages: [{ role: 'user' as const, content: 'hi' }] };

/** A model whose upstream sends its headers and the start of a body, then nothing until aborted. */
function drippingModel() {
  const seen = { aborted: false };
  const model: ChatModel = {
    id: 'dripping',
    complete: () => Promise.reject(new Error('unused')),
    stream: () => (async function* () {})(),
    async passthrough(_request, { signal }): Promise<RawCompletionResponse> {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"choices":['));
          signal?.addEventListener('abort', () => {
            seen.aborted = true;
            controller.error(signal.reason);
          });
        },
      });
      // Node's ReadableStream is async iterable; the DOM typings do not say so.
      return { status: 200, contentType: 'application/json', body: body as unknown as AsyncIterable<Uint8Array> };
    },
  };
  return { model, seen };
}

afterEach(() => vi.useRealTimers());

describe('forwardCompletion: the whole call has a time limit', () => {
  it('answers 504 upstream_timeout when a non-streamed body is still arriving at PROXY_TOTAL_TIMEOUT_MS', async () => {
    vi.useFakeTimers();
    const { model, seen } = drippingModel();
    const answer = forwardCompletion({
      model,
      request,
      headers: {},
      upstreamOwner: 'caller',
      clientSignal: new AbortController().signal,
      keepAliveMs: 15_000,
      maxDurationMs: 60_000,
    }).catch((error: unknown) => error);
    await vi.advanceTimersByTimeAsync(59_000);
    expect(seen.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(await answer).toMatchObject({ kind: 'upstream_timeout', code: 'upstream_timeout' });
    expect(seen.aborted).toBe(true);
  });
});
