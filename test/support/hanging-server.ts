import { once } from 'node:events';
import { createServer, type Socket } from 'node:net';
import { vi } from 'vitest';

/** A TCP server that accepts connections and reads requests but never answers (a hung DynamoDB, say). */
export async function startHangingServer() {
  const sockets = new Set<Socket>();
  const state = { requests: 0 };
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('data', (chunk) => {
      if (/^(GET|POST|PUT|DELETE) /.test(chunk.toString('latin1', 0, 8))) state.requests += 1;
    });
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    /** Requests read so far. */
    get requests() {
      return state.requests;
    },
    /** Connections still open (a client that gave up on its request closes its connection). */
    get connections() {
      return sockets.size;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      server.close();
      await once(server, 'close');
    },
  };
}

/** A few turns of the real event loop: what sockets need to connect and deliver a request (not a wait for time). */
async function realTurns(n = 50) {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * Runs `call` under fake timers (setTimeout only; sockets stay real), moving fake time on by `step` at a time with
 * real event-loop turns in between, until the call settles or `limit` of fake time has passed. Gives back what it
 * resolved to or the error it threw, and the fake time that passed: deadline tests on a hung peer, in no real time.
 * Fake time starts once `startWhen` holds (e.g. the hung peer got its first request), so work before that (hashing
 * on the thread pool, say) does not count against the deadline being tested.
 */
export async function settleUnderFakeTime<T>(
  call: () => Promise<T>,
  {
    step = 1_000,
    limit = 120_000,
    startWhen = () => true,
    fakeDate = false,
  }: { step?: number; limit?: number; startWhen?: () => boolean; fakeDate?: boolean } = {},
) {
  // fakeDate: for code that measures a deadline with Date.now() as well as timers.
  vi.useFakeTimers({ toFake: fakeDate ? ['setTimeout', 'clearTimeout', 'Date'] : ['setTimeout', 'clearTimeout'] });
  try {
    let elapsed = 0;
    let settled = false;
    const outcome = call().then(
      (value) => ({ value, error: undefined as unknown }),
      (error: unknown) => ({ value: undefined, error }),
    );
    void outcome.then(() => {
      settled = true;
    });
    while (!settled && elapsed < limit) {
      await realTurns();
      if (settled) break;
      if (!startWhen()) continue;
      await vi.advanceTimersByTimeAsync(step);
      elapsed += step;
    }
    if (!settled) return { value: undefined, error: new Error(`still running after ${limit} ms`), elapsed };
    return { ...(await outcome), elapsed };
  } finally {
    vi.useRealTimers();
  }
}
