/** A `fetch`-compatible function (what the Pinecone client and our HTTP adapters accept). */
export type FetchLike = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface RetryOptions {
  /** Total attempts including the first. */
  attempts?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  /** One attempt's deadline: a server that leaves a request hanging is given up on (and retried) after this. */
  attemptTimeoutMs?: number;
  /** The whole call's, retries and pauses included: no attempt outlives it (under API Gateway's 29 s). */
  totalTimeoutMs?: number;
  fetch?: FetchLike;
}

const RETRYABLE = (status: number) => status === 429 || status >= 500;

/**
 * Wraps fetch so 429 and 5xx responses (and dropped or hanging connections) are retried with exponential backoff and
 * full jitter, honouring `Retry-After` when the server sends one, for a bounded number of attempts and a bounded
 * time: each attempt has its own deadline, and none starts or runs past the call's. The last response (or error) is
 * returned as-is, so the caller's own error mapping still applies. Bodies must be replayable (strings or buffers),
 * which JSON APIs' are. The caller's own signal still aborts at once, without a retry.
 */
export function createRetryingFetch({
  attempts = 5,
  baseDelayMs = 250,
  maxDelayMs = 8_000,
  attemptTimeoutMs = 10_000,
  totalTimeoutMs = 25_000,
  fetch: baseFetch = globalThis.fetch,
}: RetryOptions = {}): FetchLike {
  return async function retryingFetch(input, init) {
    const started = Date.now();
    const left = () => totalTimeoutMs - (Date.now() - started);
    for (let attempt = 1; ; attempt++) {
      const deadline = timeoutSignal(Math.max(1, Math.min(attemptTimeoutMs, left())));
      const signal = init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline;
      let response: Response;
      try {
        response = await baseFetch(input, { ...init, signal });
      } catch (error) {
        if (init?.signal?.aborted) throw error;
        const delay = backoff(attempt, baseDelayMs, maxDelayMs);
        if (attempt >= attempts || delay >= left()) throw error;
        await pause(delay);
        continue;
      }
      if (!RETRYABLE(response.status) || attempt >= attempts) return response;
      const retryAfter = retryAfterMs(response.headers.get('retry-after'));
      const delay = Math.min(maxDelayMs, retryAfter ?? backoff(attempt, baseDelayMs, maxDelayMs));
      if (delay >= left()) return response;
      await response.body?.cancel().catch(() => undefined); // free the connection before waiting
      await pause(delay);
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

/**
 * AbortSignal.timeout, on the ordinary timer functions: the same TimeoutError, but a test's fake clock drives it
 * (the deadline tests run in no real time). Unref'd, as AbortSignal.timeout's is: it never holds the process open.
 */
function timeoutSignal(ms: number): AbortSignal {
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError')),
    ms,
  );
  timer.unref?.();
  return controller.signal;
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
