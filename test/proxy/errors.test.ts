import { createJsonLogger } from '@memgate/http';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { settleUnderFakeTime } from '../support/hanging-server.ts';
import { tokenFor } from '../support/tokens.ts';
import { startUpstreamStub } from '../support/upstream-stub.ts';
import { createFakeContextStore, startProxy } from './harness.ts';

const KEY = 'sk-very-secret-target-key-0001';
const lines: string[] = [];
const logger = createJsonLogger({ level: 'debug', sink: (line) => lines.push(line) });
const stub = await startUpstreamStub();
const fake = createFakeContextStore();
const proxy = await startProxy({ contextStore: fake.store, logger });
// Only the timeout test waits for the short deadline: on a busy machine the stub itself can take longer than 300 ms.
const impatient = await startProxy({ contextStore: fake.store, logger, env: { PROXY_UPSTREAM_TIMEOUT_MS: '300' } });
const strict = await startProxy({ contextStore: fake.store, logger, env: { PROXY_ALLOW_PRIVATE_TARGETS: 'false' } });
const token = await tokenFor('carol', { scope: 'proxy' });
afterAll(async () => {
  await proxy.close();
  await impatient.close();
  await strict.close();
  await stub.close();
});
beforeEach(() => {
  stub.setBehavior({});
  stub.requests.length = 0;
});

const userMessages = [{ role: 'user', content: 'hello' }];

async function post(
  body: unknown,
  {
    base = stub.url,
    server = proxy.url,
    auth = `Bearer ${token}`,
  }: { base?: string; server?: string; auth?: string } = {},
) {
  const res = await fetch(`${server}/api/v1/proxy/${base}/${KEY}/chat/completions`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    text,
    json: () => JSON.parse(text) as { error: { type: string; code: string; message: string } },
  };
}

describe('proxy errors (DESIGN.md section 4)', () => {
  it.each([
    [{ model: 'm', messages: userMessages, temperature: 2.5 }, 'invalid_request', 'temperature'],
    [{ model: 'm', messages: userMessages, frequency_penalty: -3 }, 'invalid_request', 'frequency_penalty'],
    [{ model: 'm', messages: userMessages, presence_penalty: 2.1 }, 'invalid_request', 'presence_penalty'],
    [{ model: 'm', messages: userMessages, max_tokens: 'ten' }, 'invalid_request', 'max_tokens'],
    [{ model: 'm', messages: userMessages, stream: 'yes' }, 'invalid_request', 'stream'],
    [{ messages: userMessages }, 'invalid_request', 'model'],
    [{ model: 'm' }, 'invalid_messages', 'messages'],
    [{ model: 'm', messages: [] }, 'invalid_messages', 'messages'],
    [{ model: 'm', messages: [{ role: 'robot', content: 'x' }] }, 'invalid_messages', 'messages[0].role'],
    [{ model: 'm', messages: [{ role: 'user' }] }, 'invalid_messages', 'messages[0].content'],
    [
      { model: 'm', messages: [{ role: 'user', content: 5 }] },
      'invalid_messages',
      'messages[0].content: must be a string, an array of content parts',
    ],
    ['{not json', 'invalid_request', 'JSON'],
  ])('400 for %j', async (body, code, mentions) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.json().error).toMatchObject({ type: 'invalid_request_error', code });
    expect(res.json().error.message).toContain(mentions);
    expect(stub.requests).toHaveLength(0);
  });

  it.each([
    ['percent-encoded (read from the Node request)', encodeURIComponent(stub.url)],
    ['as written (re-dispatched)', stub.url],
  ])(
    '413 for a body over 6 MB, declared or chunked, base URL %s; nothing reaches the upstream',
    async (_form, base) => {
      const url = `${proxy.url}/api/v1/proxy/${base}/${KEY}/chat/completions`;
      const big = JSON.stringify({ model: 'm', messages: userMessages, padding: 'p'.repeat(6 * 1024 * 1024) });
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      const declared = await fetch(url, { method: 'POST', headers, body: big });
      const bytes = new TextEncoder().encode(big);
      let offset = 0;
      const chunked = await fetch(url, {
        method: 'POST',
        headers,
        body: new ReadableStream<Uint8Array>({
          pull(controller) {
            if (offset >= bytes.length) return controller.close();
            controller.enqueue(bytes.subarray(offset, offset + 512 * 1024));
            offset += 512 * 1024;
          },
        }),
        duplex: 'half',
      } as RequestInit);
      for (const res of [declared, chunked]) {
        expect(res.status).toBe(413);
        expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: 'payload_too_large' });
      }
      expect(stub.requests).toHaveLength(0);
    },
  );

  it('415 for a body declared as text/plain, in the OpenAI shape, before calling the target; none declared is JSON', async () => {
    const body = JSON.stringify({ model: 'm', messages: userMessages });
    const url = `${proxy.url}/api/v1/proxy/${stub.url}/${KEY}/chat/completions`;
    const plain = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${token}` }, body });
    expect(plain.status).toBe(415);
    expect(await plain.json()).toEqual({
      error: {
        message: 'Content-Type text/plain is not JSON; send the body as application/json',
        type: 'invalid_request_error',
        param: null,
        code: 'unsupported_media_type',
      },
    });
    expect(stub.requests).toHaveLength(0);
    const untyped = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: new TextEncoder().encode(body),
    });
    expect(untyped.status).toBe(200);
  });

  it('401 invalid_token without a token, 403 insufficient_scope without the proxy scope', async () => {
    const missing = await post({ model: 'm', messages: userMessages }, { auth: '' });
    expect(missing.status).toBe(401);
    expect(missing.json().error).toMatchObject({ type: 'authentication_error', code: 'invalid_token' });
    const reader = await tokenFor('carol', { scope: 'context:read' });
    const scoped = await post({ model: 'm', messages: userMessages }, { auth: `Bearer ${reader}` });
    expect(scoped.status).toBe(403);
    expect(scoped.json().error).toMatchObject({ type: 'permission_error', code: 'insufficient_scope' });
  });

  it('passes an upstream error status and body through', async () => {
    const body = { error: { message: 'Rate limit reached', type: 'requests', code: 'rate_limit_exceeded' } };
    stub.setBehavior({ error: { status: 429, body } });
    const res = await post({ model: 'm', messages: userMessages });
    expect(res.status).toBe(429);
    expect(JSON.parse(res.text)).toEqual(body);
  });

  it('502 when the upstream is unreachable, 504 when it does not answer in time', async () => {
    const unreachable = await post({ model: 'm', messages: userMessages }, { base: 'http://127.0.0.1:1/v1' });
    expect(unreachable.status).toBe(502);
    expect(unreachable.json().error).toMatchObject({ type: 'server_error', code: 'upstream_unreachable' });
    stub.setBehavior({ hang: true });
    const gone = stub.nextDisconnect();
    // The default deadline (PROXY_UPSTREAM_TIMEOUT_MS, 120 s) on a fake clock, from the moment the upstream has the
    // request: sockets stay real, the deadline's timer is driven by the test.
    const { value: slow, elapsed } = await settleUnderFakeTime(() => post({ model: 'm', messages: userMessages }), {
      step: 5_000,
      limit: 180_000,
      startWhen: () => stub.requests.length > 0,
    });
    expect(slow?.status).toBe(504);
    expect(slow?.json().error).toMatchObject({ type: 'server_error', code: 'upstream_timeout' });
    expect(elapsed).toBeGreaterThanOrEqual(120_000);
    expect(elapsed).toBeLessThanOrEqual(125_000);
    await gone;
  });

  it('502 for a redirect (not followed) and for a garbage body', async () => {
    stub.setBehavior({ redirectTo: 'http://169.254.169.254/latest' });
    const redirected = await post({ model: 'm', messages: userMessages });
    expect(redirected.status).toBe(502);
    expect(redirected.json().error).toMatchObject({ type: 'server_error', code: 'upstream_redirect' });
    expect(stub.requests).toHaveLength(1);
    stub.setBehavior({ garbage: '<html>oops' });
    const garbage = await post({ model: 'm', messages: userMessages });
    expect(garbage.status).toBe(502);
    expect(garbage.json().error).toMatchObject({ type: 'server_error', code: 'upstream_invalid_response' });
  });

  it('refuses private and non-https targets with 400 invalid_target before connecting', async () => {
    for (const base of [
      stub.url,
      stub.url.replace('127.0.0.1', '2130706433'),
      'https://0x7f.1/v1',
      'https://[::1]/v1',
      // A trailing dot names the same host (DESIGN.md section 4): refused before connecting, not a 502.
      'https://localhost./v1',
    ]) {
      const res = await post({ model: 'm', messages: userMessages }, { base, server: strict.url });
      expect(res.status).toBe(400);
      expect(res.json().error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_target' });
    }
    expect(stub.requests).toHaveLength(0);
  });

  it.each([
    ['a line break', 'sk-line%0D%0AX-Injected:%201'],
    ['a character past U+00FF', 'sk-%F0%9F%98%80'],
  ])('400 naming target_api_key for a key with %s, before any call', async (_label, key) => {
    for (const [method, endpoint] of [
      ['POST', 'chat/completions'],
      ['GET', 'models'],
    ]) {
      const res = await fetch(`${proxy.url}/api/v1/proxy/${encodeURIComponent(stub.url)}/${key}/${endpoint}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        ...(method === 'POST' ? { body: JSON.stringify({ model: 'm', messages: userMessages }) } : {}),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: unknown }).error).toMatchObject({
        type: 'invalid_request_error',
        code: 'invalid_request',
        param: 'target_api_key',
      });
    }
    expect(stub.requests).toHaveLength(0);
  });

  it('logs a client that disconnects while the answer is awaited as such (499), not as a 500 with a stack', async () => {
    stub.setBehavior({ stallBody: true });
    const client = new AbortController();
    const received = stub.nextRequest();
    const gone = stub.nextDisconnect();
    const request = fetch(`${proxy.url}/api/v1/proxy/${stub.url}/${KEY}/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: userMessages }),
      signal: client.signal,
    }).catch(() => 'aborted');
    const first = lines.length;
    await received;
    client.abort();
    expect(await request).toBe('aborted');
    await gone; // the upstream call is aborted with it
    const requestLine = () => lines.slice(first).find((line) => line.includes('"msg":"request"'));
    await vi.waitFor(() => expect(requestLine()).toBeDefined());
    expect(JSON.parse(requestLine() as string)).toMatchObject({ status: 499 });
    expect(lines.slice(first).filter((line) => line.includes('"level":"error"'))).toEqual([]);
  });

  it('never writes the target key to a log line or an error message', async () => {
    // Its own failures (not the lines earlier tests left): refused, unreachable, timed out, an upstream error.
    lines.length = 0;
    const bodies: string[] = [];
    stub.setBehavior({ error: { status: 500, body: { error: { message: 'boom' } } } });
    bodies.push((await post({ model: 'm', messages: userMessages })).text);
    bodies.push((await post({ model: 'm', messages: userMessages }, { base: 'http://127.0.0.1:1/v1' })).text);
    bodies.push((await post({ model: 'm', messages: userMessages }, { base: stub.url, server: strict.url })).text);
    stub.setBehavior({ hang: true });
    bodies.push((await post({ model: 'm', messages: userMessages }, { server: impatient.url })).text);
    expect(lines.length).toBeGreaterThanOrEqual(4);
    const all = [...lines, ...bodies].join('\n');
    expect(all).not.toContain(KEY);
    expect(all).not.toContain(token);
  });
});
