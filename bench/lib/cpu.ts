import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on every Linux this runs on). */
const TICKS_PER_SECOND = 100;

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((task) =>
      readFileSync(`/proc/${pid}/task/${task}/children`, 'utf8').split(' ').filter(Boolean).map(Number),
    );
  } catch {
    return [];
  }
}

/** User + system CPU of one process (all its threads), in ms; 0 when it is gone. */
function processCpuMs(pid: number): number {
  try {
    // The command name (field 2) may hold spaces: fields are counted after its closing parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/**
 * CPU time (ms) used so far by `pid` and by each process under it (the local server and the DynamoDB Local it
 * started), read from /proc (Linux only). Differences of two readings give the CPU a piece of work cost, which a
 * busy shared machine changes far less than it changes wall time.
 */
export function processTreeCpuMs(pid: number): { own: number; children: number } {
  const below = (parent: number): number =>
    childrenOf(parent).reduce((sum, child) => sum + processCpuMs(child) + below(child), 0);
  return { own: processCpuMs(pid), children: below(pid) };
}

/**
 * The whole machine's CPU time so far (all cores, from /proc/stat's first line), in ms: `busy` (every state but
 * idle and iowait) and `idle`. Differences of two readings say whether a piece of work left cores idle.
 */
export function machineCpuMs(): { busy: number; idle: number } {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]?.trim().split(/\s+/).slice(1).map(Number) ?? [];
    const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
    const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
    return { busy: ((total - idle) * 1000) / TICKS_PER_SECOND, idle: (idle * 1000) / TICKS_PER_SECOND };
  } catch {
    return { busy: 0, idle: 0 };
  }
}
