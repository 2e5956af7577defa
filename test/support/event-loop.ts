import { readFileSync } from 'node:fs';

// How long one piece of work holds the event loop, measured so that a busy machine does not change the answer: a
// 1 ms ticker notes, for every gap between two ticks, the CPU time the main thread used in it. A gap in which the
// thread was only waiting for a core used little CPU; a gap in which one task held the loop used all of it. The
// thread's CPU comes from /proc (10 ms ticks) where there is one, else the process's (which adds its GC helper
// threads, so it errs on the long side).

const TICK_MS = 10; // Linux's USER_HZ is 100
const ownStat = `/proc/self/task/${process.pid}/stat`;

function mainThreadCpuMs(): number {
  try {
    const stat = readFileSync(ownStat, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS; // utime and stime
  } catch {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1000;
  }
}

export interface LoopHold {
  /** The CPU time of the longest gap between two ticks, in ms: how long one stretch of work held the loop. */
  cpuMs: number;
  /** The longest gap between two ticks on the wall clock, in ms (grows with the machine's load). */
  wallMs: number;
}

export async function measureLoopHold<T>(work: () => Promise<T>): Promise<{ result: T; hold: LoopHold }> {
  const hold: LoopHold = { cpuMs: 0, wallMs: 0 };
  let lastWall = performance.now();
  let lastCpu = mainThreadCpuMs();
  const note = () => {
    const wall = performance.now();
    const cpu = mainThreadCpuMs();
    hold.wallMs = Math.max(hold.wallMs, wall - lastWall);
    hold.cpuMs = Math.max(hold.cpuMs, cpu - lastCpu);
    lastWall = wall;
    lastCpu = cpu;
  };
  const ticker = setInterval(note, 1);
  try {
    const result = await work();
    note();
    return { result, hold };
  } finally {
    clearInterval(ticker);
  }
}
