import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { setPriority } from 'node:os';
import { join } from 'node:path';
import { serverEnvironment } from '../../packages/local/src/start.mjs';

// The local server as a user runs it (`npm start`: packages/local/src/main.ts in its own Node process), bound to
// 127.0.0.1 on a free port, with its resident memory sampled from /proc while the load runs.

const root = join(import.meta.dirname, '..', '..');

export interface ServerChild {
  url: string;
  pid: number;
  /** Resident set size of the server's Node process, in MB (0 once it is gone). */
  rssMb(): number;
  /** Resident set size of its children (DynamoDB Local's JVM), in MB. */
  childrenRssMb(): number;
  /** CPU seconds (user + system) the server's process and its children have used so far. */
  cpuSeconds(): { server: number; children: number };
  /** SIGTERM, then SIGKILL after `graceMs`; resolves with the exit code. */
  stop(graceMs?: number): Promise<number | null>;
  output(): string;
}

function rssOf(pid: number): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return Math.round(kb / 1024);
  } catch {
    return 0;
  }
}

/** CPU seconds of a process (all its threads), from /proc: utime + stime, in clock ticks of 10 ms. */
export function cpuSecondsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/**
 * Lowers every thread of a process to nice 10 (Linux priority is per thread, so each task under /proc is set). The
 * load run does this to DynamoDB Local and to itself: in a deployment neither the database nor the callers share
 * the server's cores, and here they would otherwise take turns with its event loop on a 2-core machine, so /health
 * would measure the scheduler rather than the server.
 */
export function lowerPriority(pid: number): void {
  let tasks: string[] = [];
  try {
    tasks = readdirSync(`/proc/${pid}/task`);
  } catch {
    return;
  }
  for (const task of tasks) {
    try {
      setPriority(Number(task), 10);
    } catch {
      // A thread that ended meanwhile; not Linux: nothing to lower.
    }
  }
}

export function childrenOf(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

export async function startServerChild(env: Record<string, string>, startTimeoutMs = 120_000): Promise<ServerChild> {
  const { DYNAMODB_ENDPOINT: _own, ...inherited } = process.env;
  // LOAD_PROFILE_DIR: the server also writes a CPU profile and its event-loop stalls there (test/load/long-tasks.ts).
  const profileDir = env.LOAD_PROFILE_DIR ?? process.env.LOAD_PROFILE_DIR;
  const profiling = profileDir
    ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`, '--import', join(import.meta.dirname, 'loop-watch.mjs')]
    : [];
  const child: ChildProcess = spawn(process.execPath, [...profiling, '--import', 'tsx', 'packages/local/src/main.ts'], {
    cwd: root,
    env: serverEnvironment({ ...inherited, PORT: '0', LOG_LEVEL: 'warn', ...env }), // as start.mjs sets it
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), startTimeoutMs);
    let listening = false;
    child.stdout?.on('data', (chunk) => {
      output = `${output}${String(chunk)}`.slice(-200_000);
      if (listening) return;
      const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output);
      if (match?.[1]) {
        listening = true;
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.stderr?.on('data', (chunk) => {
      output = `${output}${String(chunk)}`.slice(-20_000);
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${output}`));
    });
  });
  const pid = child.pid as number;
  return {
    url,
    pid,
    rssMb: () => rssOf(pid),
    childrenRssMb: () => childrenOf(pid).reduce((sum, id) => sum + rssOf(id), 0),
    cpuSeconds: () => ({
      server: cpuSecondsOf(pid),
      children: childrenOf(pid).reduce((sum, id) => sum + cpuSecondsOf(id), 0),
    }),
    output: () => output,
    stop(graceMs = 15_000) {
      if (child.exitCode !== null) return Promise.resolve(child.exitCode);
      return new Promise((resolve) => {
        const kill = setTimeout(() => child.kill('SIGKILL'), graceMs);
        child.once('exit', (code) => {
          clearTimeout(kill);
          resolve(code);
        });
        child.kill('SIGTERM');
      });
    },
  };
}
