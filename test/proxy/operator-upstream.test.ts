import { afterAll, describe, expect, it } from 'vitest';
import { tokenFor } from '../support/tokens.ts';
import { startUpstreamStub } from '../support/upstream-stub.ts';
import { createFakeContextStore, startProxy } from './harness.ts';

// DESIGN.md section 4: the operator's default model may be private http without PROXY_ALLOW_PRIVATE_TARGETS, and
// that configuration leaves route A's SSRF rules closed.
const stub = await startUpstreamStub({ behavior: { reply: 'From the private default model.' } });
const proxy = await startProxy({
  contextStore: createFakeContextStore().store,
  env: { PROXY_ALLOW_PRIVATE_TARGETS: 'false', DEFAULT_MODEL_BASE_URL: stub.url, DEFAULT_MODEL_API_KEY: 'sk-op' },
});
const token = await tokenFor('olga', { scope: 'proxy' });
afterAll(async () => {
  await proxy.close();
  await stub.close();
});

async function complete(path: string, model: string) {
  const res = await fetch(`${proxy.url}/api/v1/proxy/${path}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-memgate-store': 'off' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }] }),
  });
  type Answer = { choices: { message: { content: string } }[]; error: { type: string; code: string } };
  return { status: res.status, json: (await res.json()) as Answer };
}

describe('a private http default model with PROXY_ALLOW_PRIVATE_TARGETS off', () => {
  it('route B reaches it', async () => {
    const res = await complete('default', 'memgate/default');
    expect(res.status).toBe(200);
    expect(res.json.choices[0]?.message.content).toBe('From the private default model.');
    expect(stub.requests.at(-1)?.headers.authorization).toBe('Bearer sk-op');
  });

  it('route A still refuses the same loopback address with 400 invalid_target, without connecting', async () => {
    const before = stub.requests.length;
    const res = await complete(`${stub.url}/sk-target`, 'm');
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_target' });
    expect(stub.requests).toHaveLength(before);
  });
});
