/**
 * Child-process entry of the benchmark: runs the local server (the DynamoDB at DYNAMODB_ENDPOINT, or its own DynamoDB
 * Local without it; the embedded index under DATA_DIR) and answers the parent over IPC, so the server's CPU and memory are its own, apart from the load
 * generator's. Messages in: `{ type: 'rss' }`, `{ type: 'memory' }` (answered `{ type: 'memory', memory }`), `{ type: 'stop' }`, `{ type: 'profile-start' }`, `{ type: 'profile-stop' }`,
 * `{ type: 'settle' }`, `{ type: 'heap-start' }` or `{ type: 'heap-start-survivors' }` then `{ type: 'heap-stop' }`. Out: `{ type: 'ready', url, dynamoEndpoint }`, `{ type: 'rss', rss }`, `{ type: 'profile', profile }`,
 * `{ type: 'settled' }` (the work requests left behind is done), `{ type: 'heap-sampling' }`, `{ type: 'heap-profile', profile }`,
 * `{ type: 'error', message }`.
 */
import { Session } from 'node:inspector/promises';
import { getHeapSpaceStatistics } from 'node:v8';
import { loadConfig } from '@memgate/adapters';
import { createJsonLogger } from '@memgate/http';
import { startLocalServer } from '@memgate/local/server';

const send = (message: unknown) => process.send?.(message);

/** The V8 sampling profiler of this process, started and stopped by the parent (bench/proxy-profile.ts). */
let profiler: Session | undefined;

async function startProfile(): Promise<void> {
  profiler = new Session();
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.setSamplingInterval', { interval: 100 });
  await profiler.post('Profiler.start');
}

async function stopProfile(): Promise<void> {
  const session = profiler;
  profiler = undefined;
  if (!session) {
    send({ type: 'profile', profile: undefined });
    return;
  }
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  send({ type: 'profile', profile });
}

/**
 * V8's sampling heap profiler (bench/rss-probe.ts): by default it counts what young and full collections free too
 * (allocation, not retention); `collected` false leaves out what a young collection freed.
 */
let heapSampler: Session | undefined;

async function startHeapSampling(collected: boolean, collectedByMajor: boolean): Promise<void> {
  heapSampler = new Session();
  heapSampler.connect();
  await heapSampler.post('HeapProfiler.enable');
  await heapSampler.post('HeapProfiler.startSampling', {
    samplingInterval: 4096,
    includeObjectsCollectedByMajorGC: collectedByMajor,
    includeObjectsCollectedByMinorGC: collected,
  } as never);
}

async function stopHeapSampling(): Promise<void> {
  const session = heapSampler;
  heapSampler = undefined;
  const { profile } = session ? await session.post('HeapProfiler.stopSampling') : { profile: undefined };
  session?.disconnect();
  send({ type: 'heap-profile', profile });
}

/** Where this process's memory is (the memory area's notes): V8's heap by space, array buffers, the rest. */
function memoryBreakdown() {
  const usage = process.memoryUsage();
  const spaces = Object.fromEntries(
    getHeapSpaceStatistics()
      .filter((space) => space.physical_space_size > 0)
      .map((space) => [space.space_name, { size: space.physical_space_size, used: space.space_used_size }]),
  );
  return { ...usage, spaces };
}

// Diagnosis only: BENCH_MEMORY_TRACE=<file> appends the breakdown every 100 ms, one JSON line each.
const trace = process.env.BENCH_MEMORY_TRACE;
if (trace) {
  const { appendFileSync } = await import('node:fs');
  setInterval(() => appendFileSync(trace, `${JSON.stringify({ t: Date.now(), ...memoryBreakdown() })}\n`), 100).unref();
}

try {
  const config = loadConfig(process.env);
  const running = await startLocalServer(config, createJsonLogger({ level: config.LOG_LEVEL }));
  process.on('message', (message: { type?: string }) => {
    if (message.type === 'rss') send({ type: 'rss', rss: process.memoryUsage().rss });
    if (message.type === 'memory') send({ type: 'memory', memory: memoryBreakdown() });
    if (message.type === 'settle') void running.settled().then(() => send({ type: 'settled' }));
    if (message.type === 'profile-start') void startProfile().then(() => send({ type: 'profiling' }));
    if (message.type === 'profile-stop') void stopProfile();
    if (message.type === 'heap-start') void startHeapSampling(true, true).then(() => send({ type: 'heap-sampling' }));
    // What survived young collections (promoted to the old space), whether a full collection freed it since or not.
    if (message.type === 'heap-start-survivors')
      void startHeapSampling(false, true).then(() => send({ type: 'heap-sampling' }));
    if (message.type === 'heap-stop') void stopHeapSampling();
    if (message.type === 'stop') {
      void running.stop().finally(() => process.exit(0));
    }
  });
  process.on('disconnect', () => void running.stop().finally(() => process.exit(0)));
  send({ type: 'ready', url: running.url, dynamoEndpoint: running.dynamoEndpoint });
} catch (error) {
  send({ type: 'error', message: error instanceof Error ? error.message : String(error) });
  process.exit(1);
}
