/**
 * Diagnosis of the server's RSS under the search area's load, without the rest of the bench: restores the latest
 * cached 1k/10k/100k corpora, starts DynamoDB Local and the server child (as the bench does), loads the three
 * tenants, then runs the search area's concurrency-16 loads one after another while its memory breakdown is traced
 * every 100 ms (BENCH_MEMORY_TRACE). Prints each load's RSS peak and the breakdown at that moment. `--heap=10k,100k`
 * samples what those loads allocate (V8's sampling heap profiler, collected objects included) and prints the top
 * allocators per search; with `--sampling=survivors`, only what survived young collections (promoted to the old
 * space). `--flags` go to the server's node, `--stdout=<file>` takes its stdout (with `--flags='--trace-gc'`), and
 * the settings the bench passes on are passed on too (MALLOC_*, SEARCH_CACHE_MB, LOCAL_MEMORY_SOFT_LIMIT_MB:
 * lib/env.ts). Run: `npx tsx bench/rss-probe.ts [--heap=10k] [--seconds=6] [--flags=...]`.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startDynamoLocal } from '@memgate/local/dynamo-local';
import { signLocalToken } from '@memgate/local/token';
import { serverEnvironment } from '../packages/local/src/start.mjs';
import { queryText } from './lib/corpus.ts';
import { latestCorpusKey, restoreCorpus } from './lib/corpus-cache.ts';
import { mallocSettingsOf, passedOnOf, TABLE_NAME } from './lib/env.ts';
import { runLoad } from './lib/load.ts';
import { describeMemory, processRss } from './lib/rss.ts';
import type { MemoryBreakdown } from './lib/server.ts';

const arg = (name: string) => process.argv.find((value) => value.startsWith(`--${name}=`))?.slice(name.length + 3);
const heapAt = arg('heap')?.split(',') ?? [];
const seconds = Number(arg('seconds') ?? 6);
const flags = (arg('flags') ?? '').split(' ').filter(Boolean);
const SECRET = 'memgate-bench-secret-0123456789abcdef';
const MIB = 1024 * 1024;
const sizes = [1000, 10_000, 100_000];
const label = (size: number) => `${size / 1000}k`;
const QUERIES = Array.from({ length: 1024 }, (_, i) =>
  JSON.stringify({ query: queryText(i), similarity_threshold: 1, minimum_similarity_threshold: 0 }),
);

const key = latestCorpusKey(sizes);
const dataDir = mkdtempSync('/dev/shm/rss-probe-');
if (!key || !restoreCorpus(key, dataDir)) throw new Error('no cached corpus: run npm run bench once');
const tracePath = join(dataDir, 'memory-trace.jsonl');
const dynamo = await startDynamoLocal({ dataDir });
let child: ChildProcess | undefined;
try {
  child = fork(fileURLToPath(new URL('./lib/server-child.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx', ...flags],
    env: serverEnvironment({
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      DATA_DIR: dataDir,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      TABLE_NAME,
      PORT: '0',
      LOG_LEVEL: 'info',
      AUTH_JWT_SECRET: SECRET,
      LOCAL_INDEX_UNLOAD_AFTER_MS: '60000',
      NODE_NO_WARNINGS: '1',
      // What the bench passes on (env.ts), the trace this probe reads last so that it wins.
      ...mallocSettingsOf(process.env),
      ...passedOnOf(process.env),
      BENCH_MEMORY_TRACE: tracePath,
    }),
    // --stdout=<file>: the server's stdout (its request log, and V8's --trace-gc lines with --flags) into a file.
    stdio: ['ignore', arg('stdout') ? openSync(arg('stdout') as string, 'w') : 'ignore', 'inherit', 'ipc'],
  });
  const server = child;
  const [ready] = (await once(server, 'message')) as [{ type: string; url: string }];
  if (ready.type !== 'ready') throw new Error(`server: ${JSON.stringify(ready)}`);
  const ask = (type: string, answer: string) =>
    new Promise<Record<string, unknown>>((resolve) => {
      const onMessage = (message: { type: string }) => {
        if (message.type !== answer) return;
        server.off('message', onMessage);
        resolve(message as Record<string, unknown>);
      };
      server.on('message', onMessage);
      server.send({ type });
    });
  const url = `${ready.url}/api/v1/context/search`;
  const targets = await Promise.all(
    sizes.map(async (size) => ({
      size,
      headers: { authorization: `Bearer ${await signLocalToken(SECRET, { user: `corpus-${label(size)}` })}` },
    })),
  );
  const mark = (what: string) => console.log(`[${Date.now()}] ${what}`);
  console.log(`corpus ${key}; server idle ${(processRss(server.pid as number) ?? 0) / MIB} MiB`);
  // As the search area: a warm-up per tenant, then sequential searches rotating over them (fewer here).
  for (const target of targets) {
    await runLoad(
      { url, headers: target.headers, bodies: QUERIES.slice(-60), connections: 1, amount: 60, what: 'warm' },
      202,
    );
  }
  for (let burst = 0; burst < 4; burst++) {
    for (const target of targets) {
      const bodies = QUERIES.slice(burst * 50, burst * 50 + 50);
      await runLoad({ url, headers: target.headers, bodies, connections: 1, amount: 50, what: 'seq' }, 202);
    }
  }
  const phases: { name: string; from: number; to: number; peak: number; rps?: number }[] = [];
  phases.push({
    name: 'after the sequential searches',
    from: Date.now(),
    to: Date.now(),
    peak: processRss(server.pid as number) ?? 0,
  });
  for (const target of targets) {
    const sampling = heapAt.includes(label(target.size));
    if (sampling) await ask(`heap-start${arg('sampling') ? `-${arg('sampling')}` : ''}`, 'heap-sampling');
    const from = Date.now();
    mark(`load ${label(target.size)} starts`);
    let peak = 0;
    const sampler = setInterval(() => {
      peak = Math.max(peak, processRss(server.pid as number) ?? 0);
    }, 100);
    const run = await runLoad(
      { url, headers: target.headers, bodies: QUERIES, connections: 16, durationSeconds: seconds, what: 'load' },
      202,
    );
    clearInterval(sampler);
    mark(`load ${label(target.size)} ends`);
    phases.push({ name: `search load ${label(target.size)}`, from, to: Date.now(), peak, rps: run.requestsPerSecond });
    if (sampling) {
      const { profile } = (await ask('heap-stop', 'heap-profile')) as { profile: HeapProfile };
      printAllocations(profile, run.latencies.length);
    }
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const trace = readFileSync(tracePath, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Trace);
  for (const phase of phases) {
    const during = trace.filter((line) => line.t >= phase.from - 100 && line.t <= phase.to + 100);
    const top = during.reduce<Trace | undefined>(
      (best, line) => (best && best.rss >= line.rss ? best : line),
      undefined,
    );
    console.log(
      `${phase.name}: peak ${(phase.peak / MIB).toFixed(0)} MiB${phase.rps ? ` at ${phase.rps.toFixed(0)} req/s` : ''}; traced top: ${top ? describeMemory(top) : '-'}`,
    );
  }
  const last = trace.at(-1);
  if (last) console.log(`1 s after: ${describeMemory(last)}`);
} finally {
  if (child && child.exitCode === null) {
    const exited = once(child, 'exit');
    child.send({ type: 'stop' });
    await exited;
  }
  await dynamo.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

type Trace = MemoryBreakdown & { t: number };

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}
interface HeapProfile {
  head: HeapNode;
}

/** Allocated bytes per search by function (self), the top 30; sampled, so each figure is an estimate. */
function printAllocations(profile: HeapProfile, searches: number): void {
  const byFrame = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode) => {
    const { functionName, url, lineNumber } = node.callFrame;
    const where = `${functionName || '(anonymous)'} ${url.replace(/^.*\/(packages|node_modules)\//, '$1/')}:${lineNumber + 1}`;
    byFrame.set(where, (byFrame.get(where) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const next of node.children) walk(next);
  };
  walk(profile.head);
  console.log(`allocated per search: ${(total / searches / 1024).toFixed(1)} KiB over ${searches} searches`);
  for (const [where, bytes] of [...byFrame].sort((a, b) => b[1] - a[1]).slice(0, 30)) {
    console.log(`  ${(bytes / searches / 1024).toFixed(2).padStart(8)} KiB  ${where}`);
  }
}
