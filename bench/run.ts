/**
 * `npm run bench` (`-- --quick` for a short run; `-- --reseed` to seed the corpora even when cached; `-- --reuse-corpus`
 * to restore the latest cached corpora whatever code seeded them; `-- --only=proxy,search` for some areas and
 * `-- --sizes=1000` for other corpus sizes, both for working on the benchmark, the report then lacks figures): every
 * benchmark on the local server in one go, then bench/RESULTS.md, bench/results.json and the plots. See
 * bench/README.md.
 */
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { addArea } from './areas/add.ts';
import { chatArea } from './areas/chat.ts';
import { lambdaArea } from './areas/lambda.ts';
import { memoryArea } from './areas/memory.ts';
import { proxyLatency } from './areas/proxy.ts';
import { proxyStreaming } from './areas/proxy-stream.ts';
import { searchArea } from './areas/search.ts';
import { type BenchEnv, startBenchEnv } from './lib/env.ts';
import { closeHttp } from './lib/http.ts';
import { describeMachine } from './lib/machine.ts';
import type { AreaResult } from './lib/results.ts';
import { warmUp } from './lib/warm-up.ts';
import type { BenchReport } from './report/markdown.ts';
import { writeReport } from './report/write.ts';

interface Area {
  id: string;
  title: string;
  run(env: BenchEnv): Promise<AreaResult>;
}

// In this order: the memory area reads the peaks the load areas recorded, so it comes after them.
const AREAS: Area[] = [
  { id: 'proxy', title: 'Completion proxy: added latency (non-streaming)', run: proxyLatency },
  { id: 'proxy-stream', title: 'Completion proxy: streaming (passthrough)', run: proxyStreaming },
  { id: 'chat', title: 'Streaming chat: time to first thinking_update', run: chatArea },
  { id: 'search', title: 'Context store: search', run: searchArea },
  { id: 'add', title: 'Context store: add throughput', run: addArea },
  { id: 'memory', title: 'Local server memory (RSS of the server process)', run: memoryArea },
  { id: 'lambda', title: 'Lambda bundles and cold starts', run: lambdaArea },
];

const log = (message: string) => process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const only = process.argv
    .find((arg) => arg.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  const areas = only ? AREAS.filter((area) => only.includes(area.id)) : AREAS;
  const startedAt = new Date();
  const started = performance.now();
  const machine = describeMachine();
  const sizesArg = process.argv.find((arg) => arg.startsWith('--sizes='))?.slice('--sizes='.length);
  const sizes = sizesArg ? sizesArg.split(',').map(Number) : quick ? [1000, 10_000] : [1000, 10_000, 100_000];
  log(
    `${quick ? 'quick' : 'full'} run: corpora of ${sizes.join(', ')} chunks (seeded, or restored when cached), then the local server`,
  );
  const env = await startBenchEnv({
    quick,
    sizes,
    reseed: process.argv.includes('--reseed'),
    reuse: process.argv.includes('--reuse-corpus'),
  });
  const seeded = env.seed.seededBy
    ? `restored corpora seeded by other code (${env.seed.seededBy}) of`
    : env.seed.cached
      ? 'restored the cached corpora of'
      : 'seeded';
  log(
    `${seeded} ${env.seed.chunks} chunks (seeding took ${env.seed.seconds.toFixed(1)} s); server at ${env.server.url}`,
  );
  const results: AreaResult[] = [];
  let warmedUp: BenchReport['warmUp'];
  try {
    const seconds = quick ? 5 : 20;
    warmedUp = { seconds, requests: await warmUp(env, seconds) };
    log(`warm-up: ${warmedUp.requests} requests in ${seconds} s`);
    for (const area of areas) {
      const areaStarted = performance.now();
      // Other work on a shared machine shows up here; it explains a noisy area better than any guess.
      const load = `Load average (1 min) when this area started: ${os.loadavg()[0]?.toFixed(2)} on ${os.availableParallelism()} cores.`;
      log(`${area.id}: running`);
      try {
        const result = await area.run(env);
        results.push({ ...result, notes: [...result.notes, load] });
      } catch (error) {
        // A broken area is reported as not measured, never as invented figures; the others still run.
        const reason = error instanceof Error ? error.message : String(error);
        log(`${area.id}: FAILED: ${reason}`);
        results.push({ id: area.id, title: area.title, figures: [], notes: [], skipped: reason });
      }
      log(`${area.id}: done in ${((performance.now() - areaStarted) / 1000).toFixed(1)} s`);
    }
  } finally {
    await env.close();
    await closeHttp();
  }
  const report: BenchReport = {
    mode: quick ? 'quick' : 'full',
    startedAt: startedAt.toISOString(),
    seconds: (performance.now() - started) / 1000,
    machine,
    warmUp: warmedUp,
    areas: results,
  };
  const dir = fileURLToPath(new URL('.', import.meta.url));
  for (const path of writeReport(dir, report)) log(`wrote ${path}`);
  const failed = results.flatMap((area) => area.figures.filter((figure) => figure.pass === false));
  log(`${failed.length} figure(s) over budget; ${results.filter((area) => area.skipped).length} area(s) not measured`);
}

await main();
// Keep-alive sockets of the load generator and the SDK may linger; the report is written, so leave now.
process.exit(0);
