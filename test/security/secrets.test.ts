import { UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type StubBehavior, startUpstreamStub, type UpstreamStub } from '../support/upstream-stub.ts';
import { ALL_SCOPES, endpointsOf, type SecurityHarness, startSecurityHarness, tokenFor } from './harness.ts';

// Secrets never reach the logs (issue 8): every proxy failure path and every authentication failure runs against
// the whole service with its logger at debug level, then the captured lines are searched for each target key, the
// default model's key and every token used. Keys without a vendor prefix are included, so a leak is not hidden by
// the logger's pattern-based redaction.

const KEYS = ['plainTargetKey0123456789', 'sk-proj-abcdefghijklmnop0001', 'x_short.key~9'];
const DEFAULT_KEY = 'defaultModelSecret-55aa77cc';
let stub: UpstreamStub;
let open: SecurityHarness;
let strict: SecurityHarness;
let token: string;
const tokens: string[] = [];
/** Our own error bodies (not upstream bodies passed through) must not carry a key either. */
const ownErrors: string[] = [];
let paths = 0;

beforeAll(async () => {
  stub = await startUpstreamStub();
  const env = {
    PROXY_UPSTREAM_TIMEOUT_MS: '400',
    DEFAULT_MODEL_BASE_URL: stub.url,
    DEFAULT_MODEL_API_KEY: DEFAULT_KEY,
  };
  open = await startSecurityHarness({ env });
  strict = await startSecurityHarness({ env: { PROXY_ALLOW_PRIVATE_TARGETS: 'false' }, table: open.table });
  token = await tokenFor('sam', { orgs: ['acme'], scope: ALL_SCOPES });
  tokens.push(token);
});
afterAll(async () => {
  await stub.close();
  console.info(`secrets: ${paths} failure paths, ${open.logs.length + strict.logs.length} log lines searched`);
});

const messages = [{ role: 'user', content: 'tell me something' }];

async function routeA(
  harness: SecurityHarness,
  key: string,
  behavior: StubBehavior,
  { base = stub.url, stream = false, rawPath }: { base?: string; stream?: boolean; rawPath?: string } = {},
) {
  paths += 1;
  stub.setBehavior(behavior);
  const res = await harness.request(
    'POST',
    rawPath ?? `/api/v1/proxy/${base}/${encodeURIComponent(key)}/chat/completions`,
    {
      token,
      body: { model: 'm', messages, stream },
    },
  );
  if (!behavior.error && res.status >= 400) ownErrors.push(res.text);
  return res;
}

describe('secrets in logs and error messages', () => {
  it('every proxy failure path of route A', async () => {
    for (const key of KEYS) {
      expect((await routeA(strict, key, {}, { base: 'https://169.254.169.254/v1' })).status).toBe(400);
      expect((await routeA(strict, key, {}, { base: `https://127.0.0.1/${key}` })).status).toBe(400);
      expect((await routeA(open, key, {}, { base: 'http://127.0.0.1:1/v1' })).status).toBe(502);
      expect((await routeA(open, key, { hang: true })).status).toBe(504);
      const echoed = { error: { message: `Incorrect API key provided: ${key}`, type: 'invalid_request_error' } };
      expect((await routeA(open, key, { error: { status: 401, body: echoed } })).status).toBe(401);
      expect((await routeA(open, key, { error: { status: 500, body: `boom ${key}` } })).status).toBe(500);
      expect((await routeA(open, key, { redirectTo: `http://127.0.0.1:1/${key}` })).status).toBe(502);
      expect((await routeA(open, key, { garbage: `<html>${key}` })).status).toBe(502);
      const midway = await routeA(open, key, { reply: 'one two three four', failAfterChunks: 2 }, { stream: true });
      expect(midway.text).toContain('"error"');
      await routeA(open, key, { garbage: `data: {not json ${key}\n\n` }, { stream: true });
      await routeA(open, key, { hang: true }, { stream: true });
      const badPath = `/api/v1/proxy/${stub.url}/${key}%E0%A4%A/chat/completions`;
      expect((await routeA(open, key, {}, { rawPath: badPath })).status).toBe(400);
      for (const [method, path, status] of [
        ['GET', `/api/v1/proxy/${stub.url}/${key}/chat/completions`, 405],
        ['POST', `/api/v1/proxy/${stub.url}/${key}/models`, 405],
        ['POST', `/api/v1/proxy/${key}`, 404],
      ] as const) {
        paths += 1;
        const res = await open.request(method, path, { token, body: { model: 'm', messages } });
        expect(res.status).toBe(status);
        ownErrors.push(res.text);
      }
      paths += 1;
      const invalid = await open.request('POST', `/api/v1/proxy/${stub.url}/${key}/chat/completions`, {
        token,
        raw: `{"model":"m","messages":"${key}"}`,
      });
      expect(invalid.status).toBe(400);
    }
  });

  it('the context store failing under the proxy (injection and storing the exchange)', async () => {
    open.failing.query = true;
    await routeA(open, KEYS[0] as string, { reply: 'fine' });
    open.failing.query = false;
    open.failing.upsert = true;
    await routeA(open, KEYS[0] as string, { reply: 'stored later' });
    await open.background.idle();
    open.failing.upsert = false;
  });

  it('the default model failing under route B and the chat', async () => {
    const echoed = { error: { message: `Incorrect API key provided: ${DEFAULT_KEY}` } };
    for (const behavior of [
      { error: { status: 401, body: echoed } },
      { hang: true },
      { reply: 'a b c d', failAfterChunks: 1 },
      { garbage: `not json ${DEFAULT_KEY}` },
    ] as StubBehavior[]) {
      stub.setBehavior(behavior);
      for (const stream of [false, true]) {
        paths += 1;
        await open.request('POST', '/api/v1/proxy/default/chat/completions', {
          token,
          body: { model: 'memgate/default', messages, stream },
        });
      }
      paths += 1;
      const chat = await open.request('POST', '/api/v1/chat/generate/stream', {
        token,
        body: { chat_history: messages },
      });
      expect(chat.status).toBe(200);
      expect(chat.text).not.toContain(DEFAULT_KEY);
    }
    await open.background.idle();
  });

  it('every authentication failure on every route', async () => {
    const bad = [
      await tokenFor('sam', { expiresIn: Math.floor(Date.now() / 1000) - 60 }),
      await tokenFor('sam', { secret: 'not-the-secret-not-the-secret-0000' }),
      new UnsecuredJWT({ scope: ALL_SCOPES }).setSubject('sam').encode(),
      await tokenFor('bad user!', { scope: ALL_SCOPES }),
      await tokenFor('sam', { scope: '' }),
      `${token}tampered`,
    ];
    tokens.push(...bad);
    for (const candidate of bad) {
      for (const route of endpointsOf(stub.url)) {
        paths += 1;
        const res = await open.request(route.method, route.path, { token: candidate, body: route.body });
        expect(res.status).toBeGreaterThanOrEqual(401);
        expect(res.status).toBeLessThanOrEqual(403);
        expect(res.text).not.toContain(candidate);
        ownErrors.push(res.text);
      }
    }
  });

  it('no log line and no error message of ours holds a key or a token', () => {
    const logs = [...open.logs, ...strict.logs].join('\n');
    expect(open.logs.filter((line) => line.includes('"level":"error"')).length).toBeGreaterThan(0);
    expect(logs).toContain('request');
    for (const secret of [...KEYS, DEFAULT_KEY, ...tokens]) {
      expect(logs.includes(secret), `a log line holds ${secret.slice(0, 12)}…`).toBe(false);
      for (const body of ownErrors)
        expect(body.includes(secret), `an error body holds ${secret.slice(0, 12)}…`).toBe(false);
    }
  });
});
