import { request as httpRequest } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { tokenFor } from '../support/tokens.ts';
import { startUpstreamStub } from '../support/upstream-stub.ts';
import { createFakeContextStore, startProxy } from './harness.ts';

// DESIGN.md section 4, "Size and time": a non-streamed upstream body over 16 MB is dropped (502), a streamed one is
// forwarded with backpressure, and the stored reply is cut at 100,000 characters.
const MB = 1024 * 1024;
const stub = await startUpstreamStub();
const fake = createFakeContextStore();
const proxy = await startProxy({ contextStore: fake.store });
const operator = await startProxy({ contextStore: fake.store, env: { DEFAULT_MODEL_BASE_URL: stub.url } });
const token = await tokenFor('flora', { scope: 'proxy' });
afterAll(async () => {
  await proxy.close();
  await operator.close();
  await stub.close();
});

const path = () => `/api/v1/proxy/${stub.url}/sk-size-key/chat/completions`;
const messages = [{ role: 'user', content: 'tell me everything' }];

function post(body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${proxy.url}${path()}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** Samples this process's resident memory (the proxy runs in it) until stopped; returns the peak growth. */
function watchRss(): () => number {
  const start = process.memoryUsage.rss();
  let peak = start;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage.rss());
  }, 5);
  return () => {
    clearInterval(timer);
    return Math.max(peak, process.memoryUsage.rss()) - start;
  };
}

describe('upstream answers larger than the service holds', () => {
  it('drops a 200 MB non-streamed body with 502 upstream_response_too_large, reading little past 16 MB', async () => {
    stub.setBehavior({ flood: { bytes: 200 * MB } });
    const gone = stub.nextDisconnect();
    const growth = watchRss();
    const res = await post({ model: 'm', messages });
    const body = (await res.json()) as { error: { type: string; code: string } };
    const grew = growth();
    expect(res.status).toBe(502);
    expect(body.error).toMatchObject({ type: 'server_error', code: 'upstream_response_too_large' });
    await gone; // the upstream connection was closed, not read to its end
    // 16 MB read, plus what the sockets buffered when the cap was crossed.
    expect(stub.flood.written).toBeLessThan(48 * MB);
    expect(grew).toBeLessThan(120 * MB);
  });

  it('forwards a stream only as fast as the client reads it: the upstream stalls instead of the service buffering', async () => {
    stub.setBehavior({ flood: { bytes: 256 * MB } });
    const gone = stub.nextDisconnect();
    const url = new URL(`${proxy.url}${path()}`);
    const client = httpRequest(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    const response = new Promise<import('node:http').IncomingMessage>((resolve) => client.once('response', resolve));
    client.end(JSON.stringify({ model: 'm', messages, stream: true }));
    const res = await response;
    res.pause(); // a client that never reads
    expect(res.statusCode).toBe(200);

    const stall = await stub.flood.nextStall(500);
    expect(stall.finished).toBe(false);
    // What the sockets between the stub, the proxy and the client hold, and a few chunks: not the 256 MB.
    expect(stall.written).toBeLessThan(64 * MB);

    client.destroy();
    await gone; // the client going away aborted the upstream call
  });
});

describe('route B: a Responses stream from the default model', () => {
  it('fails with an error event once its text passes 16 MB, and stops reading the upstream', async () => {
    // The text is held whole for response.completed: an endless answer grew it to V8's string limit.
    stub.setBehavior({ flood: { bytes: 64 * MB } });
    const gone = stub.nextDisconnect();
    const res = await fetch(`${operator.url}/api/v1/proxy/default/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'memgate/default', input: 'tell me everything', stream: true }),
    });
    const text = await res.text();
    const lastLine = text.trimEnd().split('\n').at(-1) ?? '';
    const last = JSON.parse(lastLine.replace(/^data: /, ''));
    expect(last).toMatchObject({ type: 'error', code: 'upstream_response_too_large' });
    expect(text).not.toContain('response.completed');
    await gone;
    expect(stub.flood.written).toBeLessThan(64 * MB);
    await operator.background.idle();
    expect(fake.added).toHaveLength(0);
  });
});

describe('the stored reply', () => {
  const long = 'word '.repeat(30_000); // 150,000 characters

  it.each([false, true])('is cut at 100,000 characters (stream: %s)', async (stream) => {
    fake.added.length = 0;
    stub.setBehavior({ reply: long, chunks: long.match(/.{1,5000}/gs) ?? [] });
    const res = await post({ model: 'm', messages, stream });
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text.length).toBeGreaterThan(150_000); // the caller gets the whole answer
    await proxy.background.idle();
    const content = fake.added[0]?.input.documents[0]?.content ?? '';
    const reply = content.slice(content.indexOf('Assistant: ') + 'Assistant: '.length);
    expect(reply).toBe(long.slice(0, 100_000));
  });

  it.each([false, true])('is cut between characters, never inside an emoji (stream: %s)', async (stream) => {
    fake.added.length = 0;
    // 'a' then emoji: the 100,000th UTF-16 unit is the first half of the 50,000th emoji.
    const emoji = `a${'😀'.repeat(60_000)}`;
    stub.setBehavior({ reply: emoji, chunks: emoji.match(/.{1,5000}/gsu) ?? [] });
    const res = await post({ model: 'm', messages, stream });
    await res.text();
    await proxy.background.idle();
    const content = fake.added[0]?.input.documents[0]?.content ?? '';
    expect(content.slice(content.indexOf('Assistant: ') + 'Assistant: '.length)).toBe(`a${'😀'.repeat(49_999)}`);
  });
});
