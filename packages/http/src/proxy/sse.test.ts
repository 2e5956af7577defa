import { afterEach, describe, expect, it, vi } from 'vitest';
import { forwardSse, sseRelay } from './sse.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const chunk = (n: number) => encoder.encode(`data: {"choices":[{"delta":{"content":"${n} "}}]}\n\n`);

/** An upstream that yields `count` chunks, counting how many were asked for, then stays silent until aborted. */
function upstream(count: number) {
  const seen = { pulled: 0, aborted: false };
  async function* source(): AsyncGenerator<Uint8Array> {
    for (let n = 0; n < count; n += 1) {
      seen.pulled += 1;
      yield chunk(n);
    }
    await new Promise(() => {}); // silent, like a model that stopped sending
  }
  const abort = () => {
    seen.aborted = true;
  };
  return { seen, source: source(), abort };
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<string> {
  let text = '';
  for await (const bytes of stream as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(bytes);
  return text;
}

afterEach(() => vi.useRealTimers());

describe('forwardSse', () => {
  it('reads the upstream only as the client reads (backpressure: a few chunks held, not the answer)', async () => {
    const { seen, source, abort } = upstream(1000);
    const stream = forwardSse({ source, abort, keepAliveMs: 60_000, maxDurationMs: 60_000, onEnd: () => {} });
    // An eager reader would run ahead through the whole source within these turns of the event loop.
    for (let turn = 0; turn < 5; turn += 1) await new Promise((resolve) => setImmediate(resolve));
    expect(seen.pulled).toBeLessThanOrEqual(3);
    const reader = stream.getReader();
    for (let n = 0; n < 10; n += 1) await reader.read();
    expect(seen.pulled).toBeLessThanOrEqual(13);
    await reader.cancel();
    expect(seen.aborted).toBe(true);
  });

  it('ends a stream that outlives PROXY_TOTAL_TIMEOUT_MS with an error event and [DONE], aborting the upstream', async () => {
    vi.useFakeTimers();
    const { seen, source, abort } = upstream(2);
    const ends: boolean[] = [];
    const stream = forwardSse({
      source,
      abort,
      keepAliveMs: 15_000,
      maxDurationMs: 280_000,
      onEnd: (ok) => ends.push(ok),
    });
    const text = readAll(stream);
    await vi.advanceTimersByTimeAsync(279_000);
    expect(seen.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    const events = (await text).split('\n\n').filter(Boolean);
    expect(events.slice(0, 2)).toEqual([1, 2].map((n) => decoder.decode(chunk(n - 1)).trim()));
    expect(events.filter((event) => event === ': keep-alive')).toHaveLength(18); // silent after two chunks
    expect(JSON.parse(events.at(-2)?.slice('data: '.length) ?? '')).toMatchObject({
      error: { type: 'server_error', code: 'upstream_timeout', message: expect.stringContaining('280 s') },
    });
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(seen.aborted).toBe(true);
    expect(ends).toEqual([false]);
  });

  const relayOptions = {
    source: upstream(0).source,
    abort: () => {},
    keepAliveMs: 1,
    maxDurationMs: 1,
    onEnd: () => {},
  };

  it('takes a finish_reason split between two chunks as the end of the answer (no [DONE] after it)', () => {
    const event = 'data: {"choices":[{"delta":{},"finish_reason" : "stop"}]}\n\n';
    for (const at of [event.indexOf('finish'), event.indexOf(': "s'), event.indexOf('stop')]) {
      const relay = sseRelay(relayOptions);
      relay.capture(chunk(0));
      relay.capture(encoder.encode(event.slice(0, at)));
      relay.capture(encoder.encode(event.slice(at)));
      expect(relay.outcome(), event.slice(0, at)).toBeUndefined();
    }
    const cut = sseRelay(relayOptions);
    cut.capture(chunk(0));
    expect(cut.outcome()).toEqual({
      message: 'upstream stream ended before the answer',
      code: 'upstream_stream_failed',
    });
  });
});
