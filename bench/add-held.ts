/**
 * What one add holds across its DynamoDB waits, in bytes of V8 heap, independent of the machine's load: the local
 * server runs in this process (its own DynamoDB Local, an empty table), adds of the add area's shape (10 documents ×
 * 10 chunks) are sent over HTTP one at a time, and each DynamoDB answer is held back 40 ms (as under the bench's
 * load, where an add's waits are 25-150 ms). 25 ms into each wait, after the work the add does meanwhile (its
 * terms during the existence read, its embedding during the rows' writes), a full collection, then the heap's used
 * bytes less those before the add. What an add holds there is what the bench's add load copies at every young
 * collection and promotes (OVER-BUDGET.md, "Server RSS"). Medians of the adds after 10 of warm-up. Run:
 * `node --expose-gc --import tsx bench/add-held.ts [--adds=30]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { loadConfig } from '@memgate/adapters';
import { createJsonLogger } from '@memgate/http';
import { startLocalServer } from '@memgate/local/server';
import { signLocalToken } from '@memgate/local/token';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { addBody } from './lib/corpus.ts';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc --import tsx bench/add-held.ts');
const collect = gc;
const adds = Number(process.argv.find((value) => value.startsWith('--adds='))?.slice(7) ?? 30);
const WARM_UP = 10;
const SECRET = 'memgate-add-held-secret-0123456789';
const KIB = 1024;

const dataDir = mkdtempSync('/dev/shm/memgate-add-held-');
let measuring: { before: number; held: [request: string, bytes: number][] } | undefined;
// The SDK's HTTP handler, wrapped: every DynamoDB request answered 40 ms late, measured 25 ms into the wait.
const handle = NodeHttpHandler.prototype.handle;
NodeHttpHandler.prototype.handle = function heldBack(this: NodeHttpHandler, ...args: Parameters<typeof handle>) {
  const target = String(args[0].headers['x-amz-target'] ?? '').replace('DynamoDB_20120810.', '');
  const answer = handle
    .apply(this, args)
    .then((answered) => new Promise<typeof answered>((resolve) => setTimeout(() => resolve(answered), 40)));
  const current = measuring;
  if (current) {
    setTimeout(() => {
      collect();
      current.held.push([target, process.memoryUsage().heapUsed - current.before]);
    }, 25);
  }
  return answer;
};

const running = await startLocalServer(
  loadConfig({
    ...process.env,
    DATA_DIR: dataDir,
    TABLE_NAME: 'memgate-add-held',
    PORT: '0',
    LOG_LEVEL: 'warn',
    AUTH_JWT_SECRET: SECRET,
    LOCAL_MEMORY_SOFT_LIMIT_MB: '0',
  }),
  createJsonLogger({ level: 'warn' }),
);
const token = await signLocalToken(SECRET, { user: 'add-held' });
const add = (body: string) =>
  new Promise<number>((resolve, reject) => {
    const sent = request(
      `${running.url}/api/v1/context/add`,
      { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
try {
  const byStep = new Map<string, number[]>();
  for (let i = 0; i < adds; i++) {
    const body = JSON.stringify(addBody({ firstSeed: 40_000_000 + i * 10, documents: 10, chunksPerDocument: 10 }));
    collect();
    const current = { before: process.memoryUsage().heapUsed, held: [] as [string, number][] };
    if (i >= WARM_UP) measuring = current;
    const status = await add(body);
    measuring = undefined;
    if (status !== 201) throw new Error(`add answered ${status}`);
    await running.settled();
    current.held.forEach(([target, bytes], step) => {
      const key = `${step + 1}. ${target}`;
      byStep.set(key, [...(byStep.get(key) ?? []), bytes]);
    });
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] as number;
  console.log(`held by one add, 25 ms into each DynamoDB wait (medians of ${adds - WARM_UP} adds):`);
  for (const [step, values] of byStep) {
    console.log(`  ${step.padEnd(26)} ${(median(values) / KIB).toFixed(0).padStart(6)} KiB`);
  }
} finally {
  await running.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
