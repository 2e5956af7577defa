import { describe, expect, it } from 'vitest';
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
