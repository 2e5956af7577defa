import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serverEnvironment } from '../../packages/local/src/start.mjs';
import type { CpuProfile } from './profile-areas.ts';
import { processRss } from './rss.ts';

export interface ServerChild {
  url: string;
  dynamoEndpoint: string;
  pid: number;
  /** The server process's resident set size, in bytes (DynamoDB Local's JVM is a separate process, not counted). */
  rss(): Promise<number>;
  /** Where the server's memory is: process.memoryUsage() and V8's heap spaces (resident bytes and used bytes). */
  memory(): Promise<MemoryBreakdown>;
  /** Resolves once the work the server's requests left behind is done (vectors graphed, captures stored). */
  settled(): Promise<void>;
  /** Starts V8's sampling profiler in the server process (its main thread), for `stopProfile`. */
  startProfile(): Promise<void>;
  /** The profile since `startProfile`. */
  stopProfile(): Promise<CpuProfile>;
  stop(): Promise<void>;
}

export interface MemoryBreakdown extends NodeJS.MemoryUsage {
  spaces: Record<string, { size: number; used: number }>;
}

type ChildMessage =
  | { type: 'ready'; url: string; dynamoEndpoint: string }
  | { type: 'rss'; rss: number }
  | { type: 'memory'; memory: MemoryBreakdown }
  | { type: 'profiling' }
  | { type: 'settled' }
  | { type: 'profile'; profile: CpuProfile | undefined }
  | { type: 'error'; message: string };

/**
 * Starts the local server (`startLocalServer`) in a child Node process with `env` as its whole configuration, and
 * waits until it listens. With DYNAMODB_ENDPOINT set it uses that DynamoDB; without, it starts its own. `nodeFlags`
 * go to its `node` (e.g. `--cpu-prof`, bench/search-profile.ts).
 */
/** Asks a forked child to stop (its `stop` message) and waits for it to exit, killing it after `graceMs`. */
export async function stopChild(child: ChildProcess, graceMs: number): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = once(child, 'exit');
  child.send({ type: 'stop' });
  const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await exited;
  clearTimeout(force);
}

const stdoutOf = (file: string | undefined) => (file ? openSync(file, 'w') : 'ignore');

export async function startServerChild(env: Record<string, string>, nodeFlags: string[] = []): Promise<ServerChild> {
  const entry = fileURLToPath(new URL('./server-child.ts', import.meta.url));
  const child: ChildProcess = fork(entry, [], {
    execArgv: ['--import', 'tsx', ...nodeFlags],
    // As `npm start` runs it (packages/local/src/start.mjs): with its allocator settings, unless `env` sets them.
    env: serverEnvironment({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env }),
    // BENCH_SERVER_STDOUT=<file>: the server's stdout (its request log, and V8's lines with
    // BENCH_SERVER_NODE_FLAGS=--trace-gc) into that file, to count the collections a run's areas cost.
    stdio: ['ignore', stdoutOf(process.env.BENCH_SERVER_STDOUT), 'inherit', 'ipc'],
  });
  const [first] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => [{ type: 'error', message: `server exited with code ${code}` }]),
  ])) as [ChildMessage];
  if (first.type !== 'ready') {
    child.kill('SIGKILL');
    throw new Error(`local server did not start: ${first.type === 'error' ? first.message : first.type}`);
  }
  /** The next message of `type` from the child, after sending `request`. */
  const ask = <T extends ChildMessage['type']>(request: { type: string }, type: T) =>
    new Promise<Extract<ChildMessage, { type: T }>>((resolve) => {
      const onMessage = (message: ChildMessage) => {
        if (message.type !== type) return;
        child.off('message', onMessage);
        resolve(message as Extract<ChildMessage, { type: T }>);
      };
      child.on('message', onMessage);
      child.send(request);
    });
  return {
    url: first.url,
    dynamoEndpoint: first.dynamoEndpoint,
    pid: child.pid as number,
    async rss() {
      // Linux: read it from /proc, which costs the server nothing (an IPC round trip would compete with the load).
      const bytes = processRss(child.pid as number);
      if (bytes !== undefined) return bytes;
      return (await ask({ type: 'rss' }, 'rss')).rss;
    },
    async memory() {
      return (await ask({ type: 'memory' }, 'memory')).memory;
    },
    async settled() {
      await ask({ type: 'settle' }, 'settled');
    },
    async startProfile() {
      await ask({ type: 'profile-start' }, 'profiling');
    },
    async stopProfile() {
      const { profile } = await ask({ type: 'profile-stop' }, 'profile');
      if (!profile) throw new Error('the server was not profiling');
      return profile;
    },
    stop: () => stopChild(child, 10_000),
  };
}
