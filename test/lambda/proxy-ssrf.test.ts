import { lookup } from 'node:dns/promises';
import { hostname } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLES_HOOK_TIMEOUT_MS } from '../support/bundles.ts';
import { httpEvent, invokeStreaming, type StreamingHandler } from '../support/lambda.ts';
import { tokenFor } from '../support/tokens.ts';
import { startUpstreamStub, type UpstreamStub } from '../support/upstream-stub.ts';
import { type LambdaHarness, startLambdaHarness } from './harness.ts';

// The Lambda build carries only undici's fetch, Agent and connector (scripts/build.ts): the SSRF guard must still
// refuse private targets from inside the built bundle, including a name that resolves to one at connect time.
let harness: LambdaHarness;
let upstream: UpstreamStub;
let proxy: StreamingHandler;
let token: string;

beforeAll(async () => {
  upstream = await startUpstreamStub();
  harness = await startLambdaHarness(); // private targets refused, as deployed
  proxy = await harness.handlerOf<StreamingHandler>('proxy');
  token = await tokenFor('alice');
}, BUNDLES_HOOK_TIMEOUT_MS);

afterAll(async () => {
  await harness?.close();
  await upstream?.close();
});

async function complete(base: string) {
  const path = `/api/v1/proxy/${encodeURIComponent(base)}/sk-target-key-123456/chat/completions`;
  const response = await invokeStreaming(
    proxy,
    httpEvent({
      method: 'POST',
      path,
      body: { model: 'gpt-test', messages: [{ role: 'user', content: 'hello' }] },
      headers: { authorization: `Bearer ${token}` },
      functionUrl: true,
    }),
  );
  return { status: response.statusCode, error: JSON.parse(response.body).error };
}

describe('proxy Lambda target safety', () => {
  it('refuses a loopback address in the URL before connecting', async () => {
    const port = new URL(upstream.url).port;
    for (const base of [`https://127.0.0.1:${port}/v1`, `https://[::1]:${port}/v1`, upstream.url]) {
      const result = await complete(base);
      expect(result.status, base).toBe(400);
      expect(result.error, base).toMatchObject({ code: 'invalid_target' });
    }
    expect(upstream.requests).toHaveLength(0);
  });

  it('refuses a name that resolves to loopback when connecting (the dispatcher checks every address)', async () => {
    // The machine's own name passes every check made on the URL and resolves (through /etc/hosts) to a loopback
    // or private address: only the connect-time check on the resolved address can catch it.
    const name = hostname();
    const { address } = await lookup(name);
    expect(address, `${name} must resolve to this machine for this test`).toMatch(
      /^(?:127\.|10\.|172\.|192\.168\.|::1$)/,
    );
    const result = await complete(`https://${name}:${new URL(upstream.url).port}/v1`);
    expect(result.status).toBe(400);
    expect(result.error).toMatchObject({
      code: 'invalid_target',
      message: expect.stringMatching(new RegExp(`${name} resolves to`)),
    });
    expect(upstream.requests).toHaveLength(0);
  });
});
