import { getEventListeners } from 'node:events';
import { Readable } from 'node:stream';
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

/** A model whose upstream answers at once with `body`, as JSON or as an event stream. */
function answeringModel(body: string, contentType: string): ChatModel {
  return {
    id: 'answering',
    complete: () => Promise.reject(new Error('unused')),
    stream: () => (async function* () {})(),
    async passthrough(): Promise<RawCompletionResponse> {
      const bytes = new TextEncoder().encode(body);
      return {
        status: 200,
        contentType,
        body: (async function* () {
          yield bytes;
        })(),
      };
    },
  };
}

describe("forwardCompletion: the client's signal after the answer", () => {
  const forward = (model: ChatModel, clientSignal: AbortSignal, stream: boolean) =>
    forwardCompletion({
      model,
      request: { ...request, stream },
      headers: {},
      upstreamOwner: 'caller',
      clientSignal,
      keepAliveMs: 15_000,
      maxDurationMs: 60_000,
    });

  it('keeps no listener once a non-streamed answer is read (a disconnect has nothing left to stop)', async () => {
    const client = new AbortController();
    const response = await forward(answeringModel('{"choices":[]}', 'application/json'), client.signal, false);
    expect(await response.text()).toBe('{"choices":[]}');
    expect(getEventListeners(client.signal, 'abort')).toHaveLength(0);
  });

  it('keeps it while a stream is answered, so that a disconnect still stops the upstream', async () => {
    const client = new AbortController();
    await forward(answeringModel('data: {}\n\n', 'text/event-stream'), client.signal, true);
    expect(getEventListeners(client.signal, 'abort')).toHaveLength(1);
  });
});

describe('forwardCompletion: a streamed answer as a web stream (Lambda), from its first event', () => {
  const EVENT = 'data: {"choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}\n\n';
  const modelOf = (body: () => AsyncIterable<Uint8Array>): ChatModel => ({
    id: 'sse',
    complete: () => Promise.reject(new Error('unused')),
    stream: () => (async function* () {})(),
    passthrough: async () => ({ status: 200, contentType: 'text/event-stream', body: body() }),
  });
  const forward = (model: ChatModel) =>
    forwardCompletion({
      model,
      request: { ...request, stream: true },
      headers: {},
      upstreamOwner: 'operator',
      clientSignal: new AbortController().signal,
      keepAliveMs: 15_000,
      maxDurationMs: 60_000,
    });
  const bytes = (...texts: string[]) => texts.map((text) => new TextEncoder().encode(text));

  it.each([
    [
      'an async iterable',
      (...texts: string[]) =>
        (async function* () {
          yield* bytes(...texts);
        })(),
    ],
    ['a Node stream (the upstream client)', (...texts: string[]) => Readable.from(bytes(...texts))],
  ])('from %s: refuses a stream with no event (502), forwards one with events byte for byte', async (_k, source) => {
    for (const empty of [[], ['data: [DONE]\n\n'], [': ping\n\n', 'data: [DONE]\n\n']]) {
      await expect(forward(modelOf(() => source(...empty)))).rejects.toMatchObject({
        kind: 'upstream_unavailable',
        code: 'upstream_invalid_response',
      });
    }
    // The event split across chunks, after a comment: held until it is whole, then all of it goes out in order.
    const response = await forward(modelOf(() => source(': ping\n\n', 'da', EVENT.slice(2), 'data: [DONE]\n\n')));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe(`: ping\n\n${EVENT}data: [DONE]\n\n`);
  });
});
