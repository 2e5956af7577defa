import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lambdaScenarios, measureColdStart } from '../../bench/cold-start.ts';
import { BUNDLES_HOOK_TIMEOUT_MS } from '../support/bundles.ts';
import { httpEvent } from '../support/lambda.ts';
import { tokenFor } from '../support/tokens.ts';
import { type LambdaHarness, startLambdaHarness } from './harness.ts';

// The cold-start budget is judged on the response (the client's wait), the invocation's end is reported beside it
// (bench/cold-start.ts). Both are only what they claim if the figures come from where the stream really ends.

/**
 * A module run before the bundle: every HTTP request the process starts (its DynamoDB operation or its path, and
 * when, on the process's clock), written as JSON to the file named by REQUEST_LOG when the process exits.
 */
const REQUEST_WATCH = `data:text/javascript,${encodeURIComponent(`
import { subscribe } from 'node:diagnostics_channel';
import { writeFileSync } from 'node:fs';
const started = [];
subscribe('http.client.request.start', ({ request }) => {
  started.push({ at: performance.now(), operation: String(request.getHeader('x-amz-target') ?? request.path) });
});
process.on('exit', () => writeFileSync(process.env.REQUEST_LOG, JSON.stringify(started)));
`)}`;

const event = httpEvent({ method: 'GET', path: '/' });
let dir: string;
let harness: LambdaHarness;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'memgate-cold-response-'));
  harness = await startLambdaHarness();
}, BUNDLES_HOOK_TIMEOUT_MS);
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await harness?.close();
});

/** A one-file bundle exporting `handler` (the runtime stand-in provides `awslambda`). */
function bundleOf(name: string, source: string): string {
  const file = join(dir, `${name}.mjs`);
  writeFileSync(file, source);
  return file;
}

describe('measureColdStart: the response and the invocation', () => {
  it("ends a streaming handler's response when its stream ends, before the work it does after", async () => {
    const file = bundleOf(
      'streams-then-works',
      `export const handler = awslambda.streamifyResponse(async (event, stream) => {
        stream = awslambda.HttpResponseStream.from(stream, { statusCode: 200 });
        stream.write('answer');
        stream.end();
        await new Promise((done) => setTimeout(done, 200));
      });`,
    );
    const result = await measureColdStart(file, event);
    expect(result.statusCode).toBe(200);
    expect(result.coldStartMs - result.responseMs).toBeGreaterThanOrEqual(190);
    expect(result.responseCpuMs).toBeLessThanOrEqual(result.cpuMs);
  });

  it('ends a buffered handler’s response when it returns: the two figures are one', async () => {
    const file = bundleOf(
      'buffered',
      `export const handler = async () => {
        await new Promise((done) => setTimeout(done, 50));
        return { statusCode: 200, body: 'answer' };
      };`,
    );
    const result = await measureColdStart(file, event);
    expect(result.statusCode).toBe(200);
    expect(result.responseMs).toBe(result.coldStartMs);
    expect(result.responseMs).toBeGreaterThanOrEqual(50);
    expect(result.responseCpuMs).toBe(result.cpuMs);
  });

  it("ends the real proxy's response before its capture writes anything: the search's reads come before, every write after", async () => {
    const log = join(dir, 'proxy-requests.json');
    const scenarios = lambdaScenarios(await tokenFor('cold-response-user'));
    const { proxy } = scenarios;
    // As in the bench's rounds: the caller's context was added first, so the answer has sources whose origins the
    // capture reads.
    const add = await measureColdStart(join(harness.dir, 'context-add', 'index.mjs'), scenarios['context-add']?.event);
    expect(add.statusCode).toBe(201);
    const result = await measureColdStart(join(harness.dir, 'proxy', 'index.mjs'), proxy?.event, {
      env: { REQUEST_LOG: log },
      nodeArgs: ['--import', REQUEST_WATCH],
    });
    expect(result.statusCode).toBe(200);
    const requests: { at: number; operation: string }[] = JSON.parse(readFileSync(log, 'utf8'));
    // The capture's writes: its chunk rows, vectors and document rows (the search's own reads stay reads).
    const writes = requests.filter(({ operation }) =>
      /BatchWrite|PutItem|ExecuteStatement|Transact|upsert/.test(operation),
    );
    const before = requests.filter(({ at }) => at < result.responseAt);
    // The context search reads before the answer; the captured exchange is stored only after it.
    expect(before.length).toBeGreaterThan(0);
    expect(writes.length).toBeGreaterThan(0);
    for (const write of writes) expect(write.at, write.operation).toBeGreaterThan(result.responseAt);
    expect(result.coldStartMs).toBeGreaterThan(result.responseMs);
  }, 60_000);
});

describe("measureColdStart: a Lambda function's environment", () => {
  it('leaves out the machine-wide extra CA certificates and NODE_OPTIONS, which Lambda does not set, unless asked', async () => {
    const file = bundleOf(
      'reports-env',
      `export const handler = async () => ({
        statusCode: process.env.NODE_EXTRA_CA_CERTS === undefined && process.env.NODE_OPTIONS === undefined ? 200 : 500,
      });`,
    );
    const saved = { certs: process.env.NODE_EXTRA_CA_CERTS, options: process.env.NODE_OPTIONS };
    process.env.NODE_EXTRA_CA_CERTS = '/etc/ssl/certs/ca-certificates.crt';
    process.env.NODE_OPTIONS = '--max-old-space-size=4096';
    try {
      expect((await measureColdStart(file, event)).statusCode).toBe(200);
      // Set by the function's own configuration, it is kept.
      const configured = { env: { NODE_EXTRA_CA_CERTS: '/etc/ssl/certs/ca-certificates.crt' } };
      expect((await measureColdStart(file, event, configured)).statusCode).toBe(500);
    } finally {
      for (const [name, value] of [
        ['NODE_EXTRA_CA_CERTS', saved.certs],
        ['NODE_OPTIONS', saved.options],
      ] as const) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });
});
