import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { tokenFor } from '../support/tokens.ts';
import { startUpstreamStub } from '../support/upstream-stub.ts';
import { createFakeContextStore, startProxy } from './harness.ts';

// DESIGN.md section 4: the operator's default model may be private http without PROXY_ALLOW_PRIVATE_TARGETS, and
// that configuration leaves route A's SSRF rules closed.
const stub = await startUpstreamStub();
const proxy = await startProxy({
  contextStore: createFakeContextStore().store,
  env: { PROXY_ALLOW_PRIVATE_TARGETS: 'false', DEFAULT_MODEL_BASE_URL: stub.url, DEFAULT_MODEL_API_KEY: 'sk-op' },
});
const token = await tokenFor('olga', { scope: 'proxy' });
afterAll(async () => {
  await proxy.close();
  await stub.close();
});
beforeEach(() => stub.setBehavior({ reply: 'From the private default model.' }));

async function complete(path: string, model: string, stream = false) {
  const res = await fetch(`${proxy.url}/api/v1/proxy/${path}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-memgate-store': 'off' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hello' }], stream }),
  });
  const text = await res.text();
  type Answer = {
    choices: { message: { content: string } }[];
    error: { message: string; type: string; code: string };
  };
  return { status: res.status, headers: res.headers, text, json: JSON.parse(text) as Answer };
}

const RATE_LIMITED = {
  status: 429,
  body: {
    error: {
      message: 'Rate limit reached for gpt-4o in organization org-OpErAtOr42 on tokens per min (TPM): Limit 30000',
      type: 'tokens',
      param: null,
      code: 'rate_limit_exceeded',
    },
  },
  headers: {
    'retry-after': '7',
    'retry-after-ms': '6500',
    'x-request-id': 'req_operator_1',
    'x-ratelimit-remaining-tokens': '0',
    'openai-organization': 'org-OpErAtOr42',
  },
};

describe('a private http default model with PROXY_ALLOW_PRIVATE_TARGETS off', () => {
  it('route B reaches it', async () => {
    const res = await complete('default', 'memgate/default');
    expect(res.status).toBe(200);
    expect(res.json.choices[0]?.message.content).toBe('From the private default model.');
    expect(stub.requests.at(-1)?.headers.authorization).toBe('Bearer sk-op');
  });

  it.each([false, true])(
    'route B answers an operator 429 with its status, type and code but none of its body (stream: %s)',
    async (stream) => {
      stub.setBehavior({ error: RATE_LIMITED });
      const res = await complete('default', 'memgate/default', stream);
      expect(res.status).toBe(429);
      expect(res.json.error).toMatchObject({ type: 'tokens', code: 'rate_limit_exceeded' });
      expect(res.json.error.message).toMatch(/status 429/);
      expect(res.text).not.toContain('org-OpErAtOr42');
      expect(res.text).not.toContain('gpt-4o');
      // DESIGN.md section 4: route B forwards only the retry hints of the operator's headers.
      expect(res.headers.get('retry-after')).toBe('7');
      expect(res.headers.get('retry-after-ms')).toBe('6500');
      for (const name of ['x-ratelimit-remaining-tokens', 'openai-organization']) {
        expect(res.headers.get(name), name).toBeNull();
      }
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/); // ours, not the operator's
    },
  );

  it('route A passes the same 429 through to the caller who chose the target, with its rate-limit headers', async () => {
    const open = await startProxy({ contextStore: createFakeContextStore().store });
    try {
      stub.setBehavior({ error: RATE_LIMITED });
      const res = await fetch(`${open.url}/api/v1/proxy/${stub.url}/sk-target/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hello' }] }),
      });
      expect(res.status).toBe(429);
      expect(await res.json()).toEqual(RATE_LIMITED.body);
      expect(res.headers.get('x-request-id')).toBe('req_operator_1');
      expect(res.headers.get('x-ratelimit-remaining-tokens')).toBe('0');
      expect(res.headers.get('retry-after')).toBe('7');
      expect(res.headers.get('openai-organization')).toBeNull();
    } finally {
      await open.close();
    }
  });

  it('route A still refuses the same loopback address with 400 invalid_target, without connecting', async () => {
    const before = stub.requests.length;
    const res = await complete(`${stub.url}/sk-target`, 'm');
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_target' });
    expect(stub.requests).toHaveLength(before);
  });
});
