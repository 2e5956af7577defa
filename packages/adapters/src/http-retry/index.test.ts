import { describe, expect, it } from 'vitest';
import { settleUnderFakeTime } from '../../../../test/support/hanging-server.ts';
import { createRetryingFetch, type FetchLike } from './index.ts';

/** A fetch that answers from a script of statuses (or thrown errors) and counts calls. */
function scripted(steps: (number | Error)[]) {
  const calls: string[] = [];
  const fetch: FetchLike = async (input) => {
    calls.push(String(input));
    const step = steps.shift() ?? 200;
    if (step instanceof Error) throw step;
    return new Response(JSON.stringify({ status: step }), { status: step, headers: { 'retry-after': '0' } });
  };
  return { fetch, calls };
}

const options = { baseDelayMs: 1, maxDelayMs: 2 };

describe('createRetryingFetch', () => {
  it('retries 429, 5xx and dropped connections until success', async () => {
    const { fetch, calls } = scripted([429, 503, new TypeError('fetch failed'), 200]);
    const response = await createRetryingFetch({ ...options, attempts: 5, fetch })('http://x/');
    expect(response.status).toBe(200);
    expect(calls).toHaveLength(4);
  });

  it('does not retry a client error', async () => {
    const { fetch, calls } = scripted([400]);
    expect((await createRetryingFetch({ ...options, fetch })('http://x/')).status).toBe(400);
    expect(calls).toHaveLength(1);
  });

  it('stops after the bounded attempts and returns the last response', async () => {
    const { fetch, calls } = scripted([500, 500, 500, 200]);
    expect((await createRetryingFetch({ ...options, attempts: 3, fetch })('http://x/')).status).toBe(500);
    expect(calls).toHaveLength(3);
  });

  it('rethrows a network error once the attempts are spent', async () => {
    const { fetch } = scripted([new TypeError('fetch failed'), new TypeError('fetch failed')]);
    await expect(createRetryingFetch({ ...options, attempts: 2, fetch })('http://x/')).rejects.toThrow('fetch failed');
  });
});

/** A fetch whose first `hangs` calls never answer (they end only when their signal aborts), then 200s. */
function hanging(hangs: number) {
  let calls = 0;
  const fetch: FetchLike = (_input, init) => {
    calls += 1;
    if (calls > hangs) return Promise.resolve(new Response('{}', { status: 200 }));
    return new Promise((_resolve, reject) => {
      init?.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true });
    });
  };
  return { fetch, calls: () => calls };
}

// The retrying fetch reads Date.now() for the call's deadline; 100 ms steps bound where each deadline fell.
const FAKE_CLOCK = { step: 100, fakeDate: true };

describe('createRetryingFetch deadlines (on a fake clock)', () => {
  it('gives up on an attempt the server leaves hanging and retries it', async () => {
    const { fetch, calls } = hanging(1);
    const { value, elapsed } = await settleUnderFakeTime(
      () => createRetryingFetch({ ...options, attemptTimeoutMs: 10_000, fetch })('http://x/'),
      FAKE_CLOCK,
    );
    expect(value?.status).toBe(200);
    expect(calls()).toBe(2);
    // The first attempt was given up at its own deadline, not before.
    expect(elapsed).toBeGreaterThanOrEqual(10_000);
    expect(elapsed).toBeLessThanOrEqual(10_200);
  });

  it('ends the whole call by its deadline when every attempt hangs (10 s an attempt, 25 s a call)', async () => {
    const { fetch, calls } = hanging(Number.POSITIVE_INFINITY);
    const { error, elapsed } = await settleUnderFakeTime(
      () => createRetryingFetch({ ...options, attempts: 100, fetch })('http://x/'),
      FAKE_CLOCK,
    );
    expect(error).toMatchObject({ name: 'TimeoutError' });
    expect(elapsed).toBeGreaterThanOrEqual(25_000);
    expect(elapsed).toBeLessThanOrEqual(25_200);
    expect(calls()).toBe(3); // 10 s, 10 s, then the 5 s left
  });

  it("stops at once, without a retry, when the caller's own signal aborts", async () => {
    const { fetch, calls } = hanging(Number.POSITIVE_INFINITY);
    const caller = new AbortController();
    const pending = createRetryingFetch({ ...options, attemptTimeoutMs: 5_000, fetch })('http://x/', {
      signal: caller.signal,
    });
    caller.abort(new Error('client went away'));
    await expect(pending).rejects.toThrow('client went away');
    expect(calls()).toBe(1);
  });
});
