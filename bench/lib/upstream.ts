import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { startUpstreamStub } from '../../test/support/upstream-stub.ts';

/** What the bench's upstream answers to every completion. */
export const BENCH_REPLY = 'The quarterly invoice was paid and the refund went out on Monday.';

/** Where the bench's non-streaming upstream runs: `child` (the default) or `in-process` (BENCH_UPSTREAM). */
export type UpstreamPlace = 'child' | 'in-process';

export interface BenchUpstream {
  /** Base URL, e.g. http://127.0.0.1:PORT/v1 (append /chat/completions). */
  url: string;
  place: UpstreamPlace;
  close(): Promise<void>;
}

export function upstreamPlaceOf(env: NodeJS.ProcessEnv): UpstreamPlace {
  const place = env.BENCH_UPSTREAM ?? 'child';
  if (place !== 'child' && place !== 'in-process') {
    throw new Error(`BENCH_UPSTREAM must be child or in-process, not ${place}`);
  }
  return place;
}

/**
 * The OpenAI-compatible upstream that the direct call, memgate and Portkey all reach (the proxy areas). In its own
 * process by default: a real upstream is another host, so the direct baseline crosses a process boundary as a
 * proxied call does (in the bench's process, the direct call never left it, and the stub's answers waited on the
 * load generator's work and garbage). `in-process` keeps the earlier instrument, for comparing the two.
 */
export async function startBenchUpstream(place: UpstreamPlace): Promise<BenchUpstream> {
  if (place === 'in-process') {
    const stub = await startUpstreamStub({ behavior: { reply: BENCH_REPLY }, record: false });
    return { url: stub.url, place, close: () => stub.close() };
  }
  const entry = fileURLToPath(new URL('./upstream-child.ts', import.meta.url));
  const child: ChildProcess = fork(entry, [], {
    execArgv: ['--import', 'tsx'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', NODE_NO_WARNINGS: '1' },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const [first] = (await Promise.race([
    once(child, 'message'),
    once(child, 'exit').then(([code]) => [{ type: 'error', message: `upstream stub exited with code ${code}` }]),
  ])) as [{ type: string; url?: string; message?: string }];
  if (first.type !== 'ready' || !first.url) {
    child.kill('SIGKILL');
    throw new Error(`upstream stub did not start: ${first.message ?? first.type}`);
  }
  return {
    url: first.url,
    place,
    async close() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.send({ type: 'stop' });
      const force = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(force);
    },
  };
}
