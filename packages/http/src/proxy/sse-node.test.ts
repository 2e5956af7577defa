import { EventEmitter } from 'node:events';
import type { ServerResponse } from 'node:http';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { forwardSseToNode } from './sse-node.ts';

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const chunk = (n: number) => encoder.encode(`data: {"choices":[{"delta":{"content":"${n} "}}]}\n\n`);
/** A whole answer's last chunk names why it stopped: without it (nor [DONE]) the stream was cut (sse.ts). */
const last = (n: number) =>
  encoder.encode(`data: {"choices":[{"delta":{"content":"${n} "},"finish_reason":"stop"}]}\n\n`);

/** A Node response as forwardSseToNode uses it: what was written, and a buffer that fills when told to. */
class Outgoing extends EventEmitter {
  head: { status: number; headers: Record<string, string> } | undefined;
  flushed = false;
  headersSent = false;
  ended = false;
  destroyed = false;
  writableNeedDrain = false;
  /** Whether write() answers that the buffer is full. */
  full = false;
  readonly written: string[] = [];
  writeHead(status: number, headers: Record<string, string>) {
    this.head = { status, headers };
    return this;
  }
  flushHeaders() {
    this.flushed = true;
    this.headersSent = true;
  }
  write(bytes: Uint8Array): boolean {
    if (this.ended) throw new Error('write after end');
    this.headersSent = true;
    this.written.push(decoder.decode(bytes));
    this.writableNeedDrain = this.full;
    return !this.full;
  }
  end() {
    this.ended = true;
  }
  text() {
    return this.written.join('');
  }
}

/** An upstream yielding `chunks`, then silent until aborted unless `end`; counts what was asked for. */
function upstream(chunks: Uint8Array[], { end = true }: { end?: boolean } = {}) {
  const seen = { pulled: 0, aborted: false, returned: false };
  async function* source(): AsyncGenerator<Uint8Array> {
    try {
      for (const bytes of chunks) {
        seen.pulled += 1;
        yield bytes;
      }
      if (!end) await new Promise(() => {});
    } finally {
      seen.returned = true;
    }
  }
  return { seen, source: source(), abort: () => (seen.aborted = true) };
}

const settle = async () => {
  for (let turn = 0; turn < 10; turn += 1) await new Promise((resolve) => setImmediate(resolve));
};

function start(
  outgoing: Outgoing,
  options: Partial<Parameters<typeof forwardSseToNode>[0]> & { source: AsyncIterable<Uint8Array>; abort: () => void },
) {
  const ends: boolean[] = [];
  forwardSseToNode(
    { keepAliveMs: 60_000, maxDurationMs: 60_000, onEnd: (ok) => ends.push(ok), ...options },
    outgoing as unknown as ServerResponse,
    { 'content-type': 'text/event-stream; charset=utf-8', 'x-request-id': 'req-1' },
  );
  return ends;
}

afterEach(() => vi.useRealTimers());

describe('forwardSseToNode (the local server writing a forwarded stream itself)', () => {
  it('sends the status and headers with the first chunk, each chunk as it came, and [DONE] when the source did not', async () => {
    const outgoing = new Outgoing();
    const { source, abort } = upstream([chunk(0), last(1)]);
    const payloads: string[] = [];
    const ends = start(outgoing, { source, abort, onData: (data) => payloads.push(data) });
    expect(outgoing.head).toEqual({
      status: 200,
      headers: { 'content-type': 'text/event-stream; charset=utf-8', 'x-request-id': 'req-1' },
    });
    await settle();
    expect(outgoing.flushed).toBe(false);
    expect(outgoing.written).toEqual([decoder.decode(chunk(0)), decoder.decode(last(1)), 'data: [DONE]\n\n']);
    expect(outgoing.ended).toBe(true);
    expect(payloads.map((data) => JSON.parse(data).choices[0].delta.content)).toEqual(['0 ', '1 ']);
    expect(ends).toEqual([true]);
  });

  it("does not add a second [DONE] to the source's, and ends with an error event when the source fails", async () => {
    const done = new Outgoing();
    const { source, abort } = upstream([chunk(0), encoder.encode('data: [DONE]\n\n')]);
    start(done, { source, abort });
    await settle();
    expect(done.text().match(/\[DONE\]/g)).toHaveLength(1);

    const failed = new Outgoing();
    async function* failing(): AsyncGenerator<Uint8Array> {
      yield chunk(0);
      throw new Error('socket hang up');
    }
    const ends = start(failed, { source: failing(), abort: () => {} });
    await settle();
    const events = failed.text().split('\n\n').filter(Boolean);
    expect(JSON.parse(events[1]?.slice('data: '.length) ?? '')).toMatchObject({
      error: { code: 'upstream_stream_failed', type: 'server_error' },
    });
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(ends).toEqual([false]);
  });

  it('sends the status and headers on their own when the first chunk is not there by the next turn', async () => {
    const outgoing = new Outgoing();
    const { source, abort } = upstream([], { end: false });
    start(outgoing, { source, abort });
    expect(outgoing.flushed).toBe(false);
    await new Promise((resolve) => setImmediate(resolve));
    expect(outgoing.flushed).toBe(true);
    expect(outgoing.written).toEqual([]);
  });

  it('aborts the source when the client leaves before the end, and writes nothing more', async () => {
    const outgoing = new Outgoing();
    const { seen, source, abort } = upstream([chunk(0)], { end: false });
    const ends = start(outgoing, { source, abort });
    await settle();
    outgoing.destroyed = true;
    outgoing.emit('close');
    await settle();
    expect(seen.aborted).toBe(true);
    expect(ends).toEqual([false]);
    expect(outgoing.written).toEqual([decoder.decode(chunk(0))]);
    expect(outgoing.ended).toBe(false);
  });

  it('reads the next chunk only once a full response buffer has drained', async () => {
    const outgoing = new Outgoing();
    outgoing.full = true;
    const { seen, source, abort } = upstream([chunk(0), chunk(1), chunk(2)]);
    start(outgoing, { source, abort });
    await settle();
    expect(seen.pulled).toBe(1);
    outgoing.full = false;
    outgoing.writableNeedDrain = false;
    outgoing.emit('drain');
    await settle();
    expect(seen.pulled).toBe(3);
    expect(outgoing.text()).toContain('data: [DONE]');
  });

  it('ends a stream that outlives PROXY_TOTAL_TIMEOUT_MS with an error event and [DONE], keep-alives meanwhile', async () => {
    vi.useFakeTimers();
    const outgoing = new Outgoing();
    const { seen, source, abort } = upstream([chunk(0), chunk(1)], { end: false });
    const ends = start(outgoing, { source, abort, keepAliveMs: 15_000, maxDurationMs: 280_000 });
    await vi.advanceTimersByTimeAsync(279_000);
    expect(seen.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    const events = outgoing.text().split('\n\n').filter(Boolean);
    expect(events.filter((event) => event === ': keep-alive')).toHaveLength(18);
    expect(JSON.parse(events.at(-2)?.slice('data: '.length) ?? '')).toMatchObject({
      error: { type: 'server_error', code: 'upstream_timeout', message: expect.stringContaining('280 s') },
    });
    expect(events.at(-1)).toBe('data: [DONE]');
    expect(seen.aborted).toBe(true);
    expect(outgoing.ended).toBe(true);
    expect(ends).toEqual([false]);
  });

  describe('from a Node stream (the upstream client body)', () => {
    it('forwards its chunks, pauses it while the response is full, and ends with [DONE]', async () => {
      const outgoing = new Outgoing();
      outgoing.full = true;
      const body = new PassThrough();
      const ends = start(outgoing, { source: body, abort: () => {} });
      body.write(chunk(0));
      await settle();
      expect(outgoing.written).toEqual([decoder.decode(chunk(0))]);
      expect(body.isPaused()).toBe(true);
      body.write(last(1));
      await settle();
      expect(outgoing.written).toHaveLength(1);
      outgoing.full = false;
      outgoing.emit('drain');
      body.end();
      await settle();
      expect(outgoing.written).toEqual([decoder.decode(chunk(0)), decoder.decode(last(1)), 'data: [DONE]\n\n']);
      expect(outgoing.ended).toBe(true);
      expect(ends).toEqual([true]);
    });

    it('ends with an error event when the body fails or is destroyed midway, and destroys it when the client leaves', async () => {
      const failed = new Outgoing();
      const body = new PassThrough();
      body.on('error', () => {});
      const ends = start(failed, { source: body, abort: () => {} });
      body.write(chunk(0));
      await settle();
      body.destroy(new Error('other side closed'));
      await settle();
      expect(failed.text()).toContain('"code":"upstream_stream_failed"');
      expect(failed.text().endsWith('data: [DONE]\n\n')).toBe(true);
      expect(ends).toEqual([false]);

      const left = new Outgoing();
      const open = new PassThrough();
      let aborted = false;
      const leftEnds = start(left, { source: open, abort: () => (aborted = true) });
      open.write(chunk(0));
      await settle();
      left.emit('close');
      await settle();
      expect(aborted).toBe(true);
      expect(open.destroyed).toBe(true);
      expect(leftEnds).toEqual([false]);
      expect(left.ended).toBe(false);
    });
  });
});
