import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { startUpstreamStub } from '../../test/support/upstream-stub.ts';
import { stopChild } from './server.ts';

/** What the bench's upstream answers to every completion. */
export const BENCH_REPLY = 'The quarterly invoice was paid and the refund went out on Monday.';

/** Where the bench's non-streaming upstream runs: `in-process` (the default) or `child` (BENCH_UPSTREAM). */
export type UpstreamPlace = 'child' | 'in-process';

export interface BenchUpstream {
  /** Base URL, e.g. http://127.0.0.1:PORT/v1 (append /chat/completions). */
  url: string;
  place: UpstreamPlace;
  close(): Promise<void>;
}

export function upstreamPlaceOf(env: NodeJS.ProcessEnv): UpstreamPlace {
  const place = env.BENCH_UPSTREAM ?? 'in-process';
  if (place !== 'child' && place !== 'in-process') {
    throw new Error(`BENCH_UPSTREAM must be child or in-process, not ${place}`);
  }
  return place;
}

/**
 * The OpenAI-compatible upstream that the direct call, memgate and Portkey all reach (the proxy areas). `child` runs
 * it in its own process, as a real upstream is another host: the direct baseline then crosses a process boundary as
 * a proxied call does. Measured against `in-process` in session 9 (bench/OVER-BUDGET.md, "Proxy passthrough"), it
 * raised every round trip's p99 (one more process to schedule on 2 shared cores) but not the added p99 (the
 * difference), so by default the bench keeps the stub in its own process (`in-process`), the instrument of earlier sessions.
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
    close: () => stopChild(child, 5_000),
  };
}
