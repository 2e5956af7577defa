import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { tokenFor } from '../support/tokens.ts';
import { startUpstreamStub } from '../support/upstream-stub.ts';
import { createFakeContextStore, startProxy } from './harness.ts';

// A streamed completion whose upstream sends no chunk event is an upstream failure, not an empty answer: a 502 in the
// proxy's error shape when it ends before the status is sent, an error event when the upstream was silent so long
// (past the keep-alive interval) that the stream had started.
const stub = await startUpstreamStub();
const fake = createFakeContextStore();
const proxy = await startProxy({
  contextStore: fake.store,
  keepAliveMs: 200,
  env: { DEFAULT_MODEL_BASE_URL: stub.url, DEFAULT_MODEL_API_KEY: 'sk-op' },
});
const token = await tokenFor('erin', { scope: 'proxy' });
afterAll(async () => {
  await proxy.close();
  await stub.close();
});
beforeEach(async () => {
  stub.setBehavior({});
  await proxy.background.idle(); // an earlier test's capture is in, so a count taken now holds
});

const ROUTES = [
  ['route A', `${encodeURIComponent(stub.url)}/sk-target`, 'm'],
  ['route B', 'default', 'memgate/default'],
] as const;

async function streamed(path: string, model: string) {
  const res = await fetch(`${proxy.url}/api/v1/proxy/${path}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'anything new today?' }] }),
  });
  return { status: res.status, type: res.headers.get('content-type'), text: await res.text() };
}

describe.each(ROUTES)('%s, a streamed completion', (_route, path, model) => {
  it.each([
    ['an empty body', ''],
    ['data: [DONE] alone', 'data: [DONE]\n\n'],
    ['comments only', ': processing\n\n: processing\n\n'],
  ])('answers 502 in the error shape when the upstream sends %s', async (_what, body) => {
    stub.setBehavior({ garbage: body });
    const stored = fake.added.length;
    const answer = await streamed(path, model);
    expect(answer.status).toBe(502);
    expect(answer.type).toContain('application/json');
    expect(JSON.parse(answer.text)).toEqual({
      error: {
        message: 'upstream answered without events',
        type: 'server_error',
        param: null,
        code: 'upstream_invalid_response',
      },
    });
    await proxy.background.idle();
    expect(fake.added).toHaveLength(stored); // nothing captured
  });

  it('ends with an error event when the upstream, silent past the keep-alive interval, then sends nothing', async () => {
    stub.setBehavior({ garbage: '', garbageDelayMs: 600 });
    const stored = fake.added.length;
    const answer = await streamed(path, model);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain(': keep-alive\n\n');
    expect(answer.text).toContain('"code":"upstream_stream_failed"');
    expect(answer.text.endsWith('data: [DONE]\n\n')).toBe(true);
    await proxy.background.idle();
    expect(fake.added).toHaveLength(stored);
  });

  it('still forwards a normal stream unchanged, comments before its first event included', async () => {
    stub.setBehavior({ reply: 'Nothing new today.' });
    const answer = await streamed(path, model);
    expect(answer.status).toBe(200);
    expect(answer.text).toContain('"content":"Nothing "');
    expect(answer.text).not.toContain('"error"');
    expect(answer.text.endsWith('data: [DONE]\n\n')).toBe(true);
    const event =
      'data: {"id":"x","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":"stop"}]}\n\n';
    stub.setBehavior({ garbage: `: processing\n\n${event}data: [DONE]\n\n` });
    const commented = await streamed(path, model);
    expect(commented.status).toBe(200);
    expect(commented.text).toBe(`: processing\n\n${event}data: [DONE]\n\n`);
  });
});
