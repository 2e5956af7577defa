import { cpSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaScenarios, measureColdStart } from '../../bench/cold-start.ts';
import { TOKENIZER_TABLE_FILE } from '../../functions/runtime/tokenizer.ts';
import { functionNames } from '../../scripts/build.ts';
import { httpEvent } from '../support/lambda.ts';
import { tokenFor } from '../support/tokens.ts';
import { type LambdaHarness, startLambdaHarness } from './harness.ts';

// The helper `npm run bench` uses; here only its behaviour is checked (timings belong to the benchmark).
let harness: LambdaHarness;

beforeAll(async () => {
  harness = await startLambdaHarness();
}, 120_000);
afterAll(() => harness?.close());

describe('measureColdStart', () => {
  it('imports a bundle in a fresh process and serves its first API Gateway event', async () => {
    const event = httpEvent({ method: 'GET', path: '/api/v1/context/view' });
    const result = await measureColdStart(join(harness.dir, 'context-view', 'index.mjs'), event);
    expect(result.statusCode).toBe(401); // no token: answered by the app, not by a crash
    expect(result.importMs).toBeGreaterThan(0);
    expect(result.coldStartMs).toBeCloseTo(result.importMs + result.firstEventMs, 5);
    expect(result.sinceProcessStartMs).toBeGreaterThan(result.coldStartMs);
  });

  it('serves a streaming handler through the runtime stand-in', async () => {
    const event = httpEvent({ method: 'POST', path: '/api/v1/proxy/default/chat/completions', functionUrl: true });
    const result = await measureColdStart(join(harness.dir, 'proxy', 'index.mjs'), event);
    expect(result.statusCode).toBe(401);
  });

  it('reports a bundle that cannot start, with its error', async () => {
    const event = httpEvent({ method: 'GET', path: '/api/v1/context/view' });
    await expect(
      measureColdStart(join(harness.dir, 'context-view', 'index.mjs'), event, { env: { VECTOR_STORE: 'local' } }),
    ).rejects.toThrow(/VECTOR_STORE=pinecone/);
  });

  it("serves every function's benchmark first event (a real, authenticated request) with the expected status", async () => {
    const scenarios = lambdaScenarios(await tokenFor('bench-user'));
    expect(Object.keys(scenarios).sort()).toEqual(functionNames());
    for (const [name, scenario] of Object.entries(scenarios)) {
      const result = await measureColdStart(join(harness.dir, name, 'index.mjs'), scenario.event);
      expect(result.statusCode, name).toBe(scenario.status);
      expect(result.cpuMs, name).toBeGreaterThan(0);
    }
  }, 60_000);

  it('signs DynamoDB calls with the credentials Lambda sets in the environment, and only with those', async () => {
    const event = httpEvent({
      method: 'GET',
      path: '/api/v1/context/view',
      headers: { authorization: `Bearer ${await tokenFor('credentials-user')}` },
    });
    // As in AWS: no DYNAMODB_ENDPOINT (which brings fixed local credentials), the SDK's own endpoint variable.
    const asInLambda = { DYNAMODB_ENDPOINT: '', AWS_ENDPOINT_URL_DYNAMODB: harness.table.endpoint, AWS_PROFILE: '' };
    const bundle = join(harness.dir, 'context-view', 'index.mjs');
    const role = {
      AWS_ACCESS_KEY_ID: 'ASIAROLE',
      AWS_SECRET_ACCESS_KEY: 'role-secret',
      AWS_SESSION_TOKEN: 'role-token',
    };
    expect((await measureColdStart(bundle, event, { env: { ...asInLambda, ...role } })).statusCode).toBe(200);
    // Without them the call fails at once (no search of profiles, SSO or instance metadata): a clean 500.
    const none = { AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '', AWS_SESSION_TOKEN: '' };
    expect((await measureColdStart(bundle, event, { env: { ...asInLambda, ...none } })).statusCode).toBe(500);
  }, 60_000);

  it('answers the first proxy and chat requests without reading the tokenizer table (reports are estimated)', async () => {
    const scenarios = lambdaScenarios(await tokenFor('bench-user'));
    for (const name of ['proxy', 'chat-stream'] as const) {
      const copy = join(harness.dir, `${name}-without-table`);
      cpSync(join(harness.dir, name), copy, { recursive: true });
      rmSync(join(copy, TOKENIZER_TABLE_FILE), { force: true });
      expect(existsSync(join(copy, TOKENIZER_TABLE_FILE))).toBe(false);
      const scenario = scenarios[name] as (typeof scenarios)[string];
      const result = await measureColdStart(join(copy, 'index.mjs'), scenario.event);
      expect(result.statusCode, name).toBe(scenario.status);
      rmSync(copy, { recursive: true, force: true });
    }
  }, 60_000);
});
