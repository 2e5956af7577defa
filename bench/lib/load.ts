import autocannon, { type Result } from 'autocannon';

export interface LoadRun {
  /** Every response's latency in ms, as autocannon measured it (its own histogram rounds to whole ms). */
  latencies: number[];
  result: Result;
  /**
   * Seconds from starting the run to its last response. Not autocannon's `result.duration`: autocannon ends a run on
   * its next once-a-second tick, so a run of a fixed number of requests lasted a whole number of seconds by that
   * figure (4.0 for adds that took 3.1 s: 25% fewer items per second than were written).
   */
  seconds: number;
  /** Completed requests per second over the run. */
  requestsPerSecond: number;
}

export interface LoadOptions {
  /** Full URL of the endpoint; every request is a POST of JSON to it. */
  url: string;
  headers: Record<string, string>;
  /** The bodies to send, in turn (each request takes the next one, wrapping around). */
  bodies: readonly string[];
  connections: number;
  /** Either a fixed number of requests or a duration in seconds. */
  amount?: number;
  durationSeconds?: number;
  /** What this load is, for the error message when a request fails. */
  what: string;
}

/**
 * Runs autocannon against one endpoint and keeps each response's latency from its `response` event (sub-millisecond
 * resolution), so percentiles are exact rather than histogram buckets. Any error, timeout or unexpected status
 * fails the run: a figure built on failed requests would mean nothing.
 */
export async function runLoad(options: LoadOptions, expectedStatus: number): Promise<LoadRun> {
  const { pathname, search, origin } = new URL(options.url);
  let next = 0;
  const started = performance.now();
  let lastResponse = started;
  const instance = autocannon({
    url: origin,
    connections: options.connections,
    ...(options.amount === undefined ? { duration: options.durationSeconds ?? 5 } : { amount: options.amount }),
    timeout: 60,
    requests: [
      {
        method: 'POST',
        path: `${pathname}${search}`,
        headers: { 'content-type': 'application/json', ...options.headers },
        setupRequest: (request) => {
          const body = options.bodies[next++ % options.bodies.length] as string;
          return { ...request, body };
        },
      },
    ],
  });
  const latencies: number[] = [];
  const unexpected: number[] = [];
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    lastResponse = performance.now();
    if (statusCode === expectedStatus) latencies.push(responseTime);
    else unexpected.push(statusCode);
  });
  const result = await instance;
  if (result.errors > 0 || result.timeouts > 0 || unexpected.length > 0) {
    const statuses = [...new Set(unexpected)].join(', ') || 'none';
    throw new Error(
      `${options.what}: ${result.errors} errors, ${result.timeouts} timeouts, unexpected statuses: ${statuses}`,
    );
  }
  const seconds = (lastResponse - started) / 1000;
  return { latencies, result, seconds, requestsPerSecond: latencies.length / seconds };
}
