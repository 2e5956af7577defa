/** A `fetch`-compatible function (what the Pinecone client and our HTTP adapters accept). */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface RetryOptions {
  /** Total attempts including the first. */
  attempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  fetch?: FetchLike;
}

const RETRYABLE = (status: number) => status === 429 || status >= 500;

/**
 * Wraps fetch so 429 and 5xx responses (and dropped connections) are retried with exponential backoff and full
 * jitter, honouring `Retry-After` when the server sends one, for a bounded number of attempts. The last response
 * (or error) is returned as-is, so the caller's own error mapping still applies. Bodies must be replayable
 * (strings or buffers), which JSON APIs' are.
 */
export function createRetryingFetch({
  attempts = 5,
  baseDelayMs = 250,
  maxDelayMs = 8_000,
  fetch: baseFetch = globalThis.fetch,
}: RetryOptions = {}): FetchLike {
  return async function retryingFetch(input, init) {
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await baseFetch(input, init);
      } catch (error) {
        if (attempt >= attempts || init?.signal?.aborted) throw error;
        await pause(backoff(attempt, baseDelayMs, maxDelayMs));
        continue;
      }
      if (!RETRYABLE(response.status) || attempt >= attempts) return response;
      const retryAfter = retryAfterMs(response.headers.get('retry-after'));
      await response.body?.cancel().catch(() => undefined); // free the connection before waiting
      await pause(Math.min(maxDelayMs, retryAfter ?? backoff(attempt, baseDelayMs, maxDelayMs)));
    }
  };
}

/** Full jitter: uniform in [0, min(max, base·2^(attempt−1))], so retrying clients spread out. */
function backoff(attempt: number, baseDelayMs: number, maxDelayMs: number): number {
  return Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
}

function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
