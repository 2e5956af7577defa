import { cpSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaScenarios, measureColdStart } from '../../bench/cold-start.ts';
import { functionNames, SIDECARS } from '../../scripts/build.ts';
import { BUNDLES_HOOK_TIMEOUT_MS } from '../support/bundles.ts';
import { httpEvent } from '../support/lambda.ts';
import { tokenFor } from '../support/tokens.ts';
import { type LambdaHarness, startLambdaHarness } from './harness.ts';

/** A module run before the bundle: the process fails at exit when Node's internal undici was loaded. */
const UNDICI_WATCH = `data:text/javascript,${encodeURIComponent(
  "process.on('exit', () => { if (process.moduleLoadList.includes('NativeModule internal/deps/undici/undici')) { process.stderr.write(`Error: Node's undici was loaded\\n`); process.exitCode = 1; } });",
)}`;

/** The same for Node's web streams: the process fails at exit when its ReadableStream was loaded. */
const WEB_STREAMS_WATCH = `data:text/javascript,${encodeURIComponent(
  "process.on('exit', () => { if (process.moduleLoadList.includes('NativeModule internal/webstreams/readablestream')) { process.stderr.write(`Error: Node's web streams were loaded\\n`); process.exitCode = 1; } });",
)}`;

// The helper `npm run bench` uses; here only its behaviour is checked (timings belong to the benchmark).
let harness: LambdaHarness;

beforeAll(async () => {
  harness = await startLambdaHarness();
}, BUNDLES_HOOK_TIMEOUT_MS);
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

  it('measures an add that writes at every start: each first event of context-add carries a new document', async () => {
    // The same document again would be an unchanged re-add, answered from one read (DESIGN §3).
    const scenarios = lambdaScenarios(await tokenFor('bench-user'));
    const add = scenarios['context-add'] as { event: { body: string } };
    const documents = () => JSON.parse(add.event.body).documents[0];
    const [first, second] = [documents(), documents()];
    expect(second.fileName).not.toBe(first.fileName);
    expect(second.content).not.toBe(first.content);
  });

  it("serves every function's benchmark first event without loading Node's undici (its fetch classes)", async () => {
    // Node's Headers, Request and Response load and compile all of undici on first touch, ~35-45 ms of a cold start:
    // the bundles use functions/runtime/web instead, and import no built-in as ESM (an ESM node:http loads it too).
    const scenarios = lambdaScenarios(await tokenFor('bench-user'));
    for (const [name, scenario] of Object.entries(scenarios)) {
      const result = await measureColdStart(join(harness.dir, name, 'index.mjs'), scenario.event, {
        nodeArgs: ['--import', UNDICI_WATCH],
      });
      expect(result.statusCode, name).toBe(scenario.status);
    }
  }, 60_000);

  it("serves every first event answered whole without loading Node's web streams (only the chat's SSE needs them)", async () => {
    // The request body is in the event and the answer in memory: the API reads the one and the streaming adapter
    // writes the other without a ReadableStream, and the AWS SDK's stream checks do not read that global (~4 ms).
    const scenarios = lambdaScenarios(await tokenFor('bench-user'));
    for (const [name, scenario] of Object.entries(scenarios)) {
      if (name === 'chat-stream') continue;
      const result = await measureColdStart(join(harness.dir, name, 'index.mjs'), scenario.event, {
        nodeArgs: ['--import', WEB_STREAMS_WATCH],
      });
      expect(result.statusCode, name).toBe(scenario.status);
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

  it('serves every first event without the sidecars read on first use (the 1 MB budget counts index.mjs and its static chunks)', async () => {
    // The tokenizer table (reports are estimated; the first request's history fits by upper bounds), undici's
    // parser (the default model answers without an upstream) and Scalar's script (the page's first fetch is the
    // document): none of them is read at a cold start.
    const scenarios = lambdaScenarios(await tokenFor('bench-user'));
    for (const name of functionNames()) {
      const copy = join(harness.dir, `${name}-without-sidecars`);
      cpSync(join(harness.dir, name), copy, { recursive: true });
      for (const { file } of SIDECARS) rmSync(join(copy, file), { force: true });
      // (Chunks are index.mjs's code, split by esbuild: the lazy ones load on first use, from the same directory.)
      const left = readdirSync(copy).filter((file) => !file.endsWith('.LEGAL.txt') && !/^chunk-\w+\.mjs/.test(file));
      expect(left.sort(), name).toEqual(['index.mjs', 'index.mjs.map']);
      const scenario = scenarios[name] as (typeof scenarios)[string];
      const result = await measureColdStart(join(copy, 'index.mjs'), scenario.event);
      expect(result.statusCode, name).toBe(scenario.status);
      rmSync(copy, { recursive: true, force: true });
    }
  }, 90_000);
});
