import { afterAll, describe, expect, it } from 'vitest';
import { startUpstreamStub } from './upstream-stub.ts';

const stub = await startUpstreamStub();
afterAll(() => stub.close());

const post = (body: unknown, signal?: AbortSignal) =>
  fetch(`${stub.url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: 'Bearer sk-target' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  });

describe('the upstream stub', () => {
  it('answers and records a non-streamed completion', async () => {
    stub.setBehavior({ reply: 'hi there' });
    const res = await post({ model: 'm', messages: [{ role: 'user', content: 'x' }] });
    expect(await res.json()).toMatchObject({
      object: 'chat.completion',
      choices: [{ message: { content: 'hi there' } }],
    });
    expect(stub.requests.at(-1)).toMatchObject({
      method: 'POST',
      path: '/v1/chat/completions',
      headers: { authorization: 'Bearer sk-target' },
    });
  });

  it('streams chunks ending with [DONE]', async () => {
    stub.setBehavior({ chunks: ['a', 'b'] });
    const text = await (await post({ model: 'm', stream: true, messages: [] })).text();
    expect(text.match(/^data: /gm)).toHaveLength(5);
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  it('returns a configured error', async () => {
    stub.setBehavior({ error: { status: 429, body: { error: { message: 'slow down' } } } });
    const res = await post({ model: 'm', messages: [] });
    expect(res.status).toBe(429);
  });

  it('reports a client that went away', async () => {
    stub.setBehavior({ hang: true });
    const controller = new AbortController();
    const gone = stub.nextDisconnect();
    const received = stub.nextRequest();
    const pending = post({ model: 'm', messages: [] }, controller.signal).catch(() => 'aborted');
    await received;
    controller.abort();
    await gone;
    expect(await pending).toBe('aborted');
  });
});

describe('the upstream stub without recording (the benchmark’s)', () => {
  it('answers as usual and keeps no request', async () => {
    const quiet = await startUpstreamStub({ behavior: { reply: 'quiet' }, record: false });
    try {
      const seen = quiet.nextRequest();
      const res = await fetch(`${quiet.url}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(await res.json()).toMatchObject({ choices: [{ message: { content: 'quiet' } }] });
      expect((await seen).text).toContain('"content":"x"');
      expect(quiet.requests).toEqual([]);
    } finally {
      await quiet.close();
    }
  });
});
