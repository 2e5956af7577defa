import { type BenchEnv, UNLOAD_AFTER_MS } from '../lib/env.ts';
import { type AreaResult, atMost, figure } from '../lib/results.ts';
import { describeMemory, processRss } from '../lib/rss.ts';
import { round } from '../lib/stats.ts';

const MIB = 1024 * 1024;

/** The server checks for idle tenants every half idle time (at most a minute); then a margin. */
const IDLE_WAIT_MS = UNLOAD_AFTER_MS + Math.min(60_000, UNLOAD_AFTER_MS / 2) + 5000;

/**
 * The local server's memory (issue 17: at most 512 MB under the bench's load, back near idle after it): RSS of its
 * Node process idle after start, at its peak under each load the other areas applied (sampled every 100 ms from
 * /proc), 1 s after the last load, and once every tenant has been idle long enough to be unloaded. Run it last.
 */
export async function memoryArea(env: BenchEnv): Promise<AreaResult> {
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await env.rss.record('1 s after the last load');
  const loaded = await env.server.memory();
  await new Promise((resolve) => setTimeout(resolve, IDLE_WAIT_MS - 1000));
  await env.rss.record('idle after every load (end of the run)');
  const unloaded = await env.server.memory();
  const readings = env.rss.readings;
  const idle = readings[0];
  const end = readings.at(-1);
  const loads = readings.filter((reading) => reading.samples !== undefined);
  const peak = loads.reduce((max, reading) => Math.max(max, reading.bytes), 0);
  const peakOf = (prefix: string) =>
    loads.filter((reading) => reading.label.startsWith(prefix)).reduce((max, r) => Math.max(max, r.bytes), 0);
  const mib = (bytes: number | undefined) => round((bytes ?? Number.NaN) / MIB);
  const jvm = processRss(env.dynamo.pid);
  return {
    id: 'memory',
    title: 'Local server memory (RSS of the server process)',
    figures: [
      figure('idle after start', mib(idle?.bytes), 'MiB'),
      figure('peak under search load (concurrency 16)', mib(peakOf('search load')), 'MiB'),
      figure('peak under add load', mib(peakOf('add load')), 'MiB'),
      figure('peak under any load', mib(peak), 'MiB', { budget: atMost(512, '#17') }),
      figure('1 s after the last load', mib(readings.at(-2)?.bytes), 'MiB'),
      figure('idle at the end of the run', mib(end?.bytes), 'MiB'),
    ],
    notes: [
      `The server runs with LOCAL_INDEX_UNLOAD_AFTER_MS=${UNLOAD_AFTER_MS} (the default is 10 minutes): a tenant unused that long leaves memory until its next request; the end is read ${Math.round(IDLE_WAIT_MS / 1000)} s after the last load.`,
      'The server is one Node process (child of the benchmark); DynamoDB Local is a separate Java process and is not counted' +
        (jvm === undefined ? '.' : ` (its RSS at the end: ${mib(jvm)} MiB).`),
      `Where it is 1 s after the last load: ${describeMemory(loaded)}; at the end: ${describeMemory(unloaded)}.`,
      `Every reading: ${readings.map((reading) => `${reading.label} ${mib(reading.bytes)} MiB${reading.medianBytes === undefined ? '' : ` (median ${mib(reading.medianBytes)}, ${reading.samples} samples)`}`).join('; ')}.`,
    ],
    series: Object.fromEntries(readings.map((reading) => [reading.label, { bytes: reading.bytes }])),
  };
}
