import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

// `npx tsx test/load/long-tasks.ts <LOAD_PROFILE_DIR>`: what held the server's event loop during a profiled load run
// (`LOAD_PROFILE_DIR=<dir> npm run test:load`). For each stall that loop-watch.mjs noted (a 10 ms timer over 50 ms
// late), the CPU profile's samples in that window are attributed to the innermost frame of our own code (packages/)
// on their stack, or to the innermost frame at all when none is ours; then the same over the whole run. The stall's
// wall time also holds any wait for a core on a busy machine, so the share of samples is what to read.

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}
interface LoopLog {
  firstRequestUs: number;
  delay: { p50: number; p99: number; max: number };
  stalls: { endUs: number; ms: number }[];
}

const root = join(import.meta.dirname, '..', '..');
const dir = process.argv[2];
if (!dir) throw new Error('usage: long-tasks.ts <LOAD_PROFILE_DIR>');
// --cpu-prof's default interval. A thread that waits for a core misses its samples (the profiler's signals to it
// coalesce), so samples × interval approximates the CPU time the loop was held for.
const SAMPLE_INTERVAL_MS = 1;
const top = Number(process.argv[3] ?? 6);

const frameName = ({ functionName, url, lineNumber }: CallFrame) => {
  const file = url.startsWith('file://') ? relative(root, new URL(url).pathname) : url;
  return `${functionName || '(anonymous)'} ${file ? `${file}:${lineNumber + 1}` : ''}`.trim();
};
const ours = (url: string) => url.includes('/packages/') && !url.includes('node_modules');

for (const name of readdirSync(dir).filter((file) => file.endsWith('.cpuprofile'))) {
  const profile = JSON.parse(readFileSync(join(dir, name), 'utf8')) as Profile;
  // CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile; thread 0 is the main thread (the event loop).
  const [, pid, thread] = /^CPU\.\d+\.\d+\.(\d+)\.(\d+)\./.exec(name) ?? [];
  const logName = thread === '0' ? readdirSync(dir).find((file) => file === `loop-${pid}.json`) : undefined;
  if (!logName) continue; // not the server (the runner, tsx's parent)
  const log = JSON.parse(readFileSync(join(dir, logName), 'utf8')) as LoopLog;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  /** The label of a sample: our innermost frame, else the innermost frame, with GC and idle as themselves. */
  const labelCache = new Map<number, string>();
  const labelOf = (id: number): string => {
    const cached = labelCache.get(id);
    if (cached) return cached;
    const leaf = byId.get(id) as ProfileNode;
    let label = frameName(leaf.callFrame);
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const node = byId.get(at) as ProfileNode;
      if (ours(node.callFrame.url)) {
        label = `${frameName(node.callFrame)}  [self: ${frameName(leaf.callFrame)}]`;
        break;
      }
    }
    labelCache.set(id, label);
    return label;
  };
  const times: number[] = [];
  let t = profile.startTime;
  for (const delta of profile.timeDeltas) {
    t += delta;
    times.push(t);
  }
  const tally = (from: number, to: number) => {
    const counts = new Map<string, number>();
    let total = 0;
    for (let i = 0; i < times.length; i++) {
      const at = times[i] as number;
      if (at < from || at > to) continue;
      const label = labelOf(profile.samples[i] as number);
      counts.set(label, (counts.get(label) ?? 0) + 1);
      total++;
    }
    return { total, counts: [...counts].sort((a, b) => b[1] - a[1]) };
  };
  const print = (title: string, { total, counts }: ReturnType<typeof tally>) => {
    console.log(`${title}: ${total} samples`);
    for (const [label, count] of counts.slice(0, top)) {
      console.log(`  ${((100 * count) / total).toFixed(1).padStart(5)}%  ${label}`);
    }
  };
  const stalls = log.stalls.sort((a, b) => b.ms - a.ms);
  const stallMs = stalls.reduce((sum, s) => sum + s.ms, 0);
  console.log(
    `server ${pid}: event-loop delay p50 ${log.delay.p50} ms, p99 ${log.delay.p99} ms, max ${log.delay.max} ms`,
  );
  console.log(
    `  ${stalls.length} stalls over 50 ms, ${stallMs} ms in all; longest: ${stalls
      .slice(0, 10)
      .map((s) => s.ms)
      .join(', ')} ms`,
  );
  // Samples inside every stall, pooled: what holds the loop when it is held.
  const pooled = new Map<string, number>();
  let pooledTotal = 0;
  for (const stall of stalls) {
    const { total, counts } = tally(stall.endUs - stall.ms * 1000, stall.endUs);
    pooledTotal += total;
    for (const [label, count] of counts) pooled.set(label, (pooled.get(label) ?? 0) + count);
  }
  print('inside the stalls', { total: pooledTotal, counts: [...pooled].sort((a, b) => b[1] - a[1]) });
  // A stall with few samples is one in which the thread waited for a core (samples are taken only while it runs),
  // or in a lock (e.g. waiting for a module loader's worker); one with many held the loop with work.
  const sampleMs = SAMPLE_INTERVAL_MS;
  const busy = stalls
    .map((stall) => ({ stall, cpuMs: tally(stall.endUs - stall.ms * 1000, stall.endUs).total * sampleMs }))
    .sort((a, b) => b.cpuMs - a.cpuMs);
  const held = busy.filter(({ cpuMs }) => cpuMs >= 50);
  console.log(
    `stalls with over 50 ms of samples (work held the loop): ${held.length} of ${stalls.length}; ` +
      `the rest had ${busy.filter(({ cpuMs }) => cpuMs < 50).reduce((sum, { stall }) => sum + stall.ms, 0)} ms of ` +
      'wall time with less (the thread waited for a core or a lock)',
  );
  for (const { stall, cpuMs } of held.slice(0, 8)) {
    print(
      `stall of ${stall.ms} ms, ${cpuMs.toFixed(0)} ms sampled, ${((stall.endUs - log.firstRequestUs) / 1e6).toFixed(1)} s after the first request`,
      tally(stall.endUs - stall.ms * 1000, stall.endUs),
    );
  }
  print('from the first request on', tally(log.firstRequestUs, Infinity));
}
