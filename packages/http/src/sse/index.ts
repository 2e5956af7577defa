import { chatFailureOf } from '@memgate/core';

const encoder = new TextEncoder();
export const KEEP_ALIVE = encoder.encode(': keep-alive\n\n');
export const DONE = encoder.encode('data: [DONE]\n\n');

/**
 * Sends `: keep-alive` every `keepAliveMs` of silence until `isClosed()`. The caller re-arms the returned timer with
 * `refresh()` whenever it sends something: cheaper than clear + set on every chunk.
 */
export function keepAlive(
  controller: ReadableStreamDefaultController<Uint8Array>,
  keepAliveMs: number,
  isClosed: () => boolean,
): NodeJS.Timeout {
  const timer = setTimeout(function sendKeepAlive() {
    if (isClosed()) return;
    // A client that is not reading already has something queued; more comments would only pile up.
    if ((controller.desiredSize ?? 0) > 0) controller.enqueue(KEEP_ALIVE);
    timer.refresh();
  }, keepAliveMs);
  return timer;
}

/** Headers of every event stream this service sends. */
export const SSE_HEADERS = {
  'Content-Type': 'text/event-stream',
  'Cache-Control': 'no-cache',
  Connection: 'keep-alive',
  // Proxies that buffer (nginx) would hold back the first thinking step.
  'X-Accel-Buffering': 'no',
} as const;

/** One `data:` event line for a JSON value. */
/** What a stream cut at its time limit (PROXY_TOTAL_TIMEOUT_MS) tells the caller: the proxy's and the chat's alike. */
export function overlongMessage(maxDurationMs: number): string {
  return `the answer took longer than ${Math.round(maxDurationMs / 1000)} s and was cut`;
}

export function dataEvent(value: unknown): Uint8Array {
  return encoder.encode(`data: ${JSON.stringify(value)}\n\n`);
}

/** What a failed stream tells the client: a MemgateError's own message, else a generic one (no stack, no secret). */
export function streamErrorEvent(error: unknown): Uint8Array {
  return dataEvent(chatFailureOf(error));
}

export interface EventStreamOptions {
  events: AsyncIterable<unknown>;
  /** Called when the client goes away: aborts the work behind `events`. */
  abort: () => void;
  keepAliveMs: number;
  /** Receives a failure after the stream started (for the log), before the error event is sent. */
  onError?: (error: unknown) => void;
}

/**
 * Sends each value of `events` as `data: {json}` as soon as it is produced, `: keep-alive` comments while nothing
 * else is sent, a failure as an error event, and always ends with `data: [DONE]`. Cancelling the stream (client
 * disconnect) aborts the work and stops the iteration, so the producer's cleanup runs.
 */
export function eventStream({ events, abort, keepAliveMs, onError }: EventStreamOptions): ReadableStream<Uint8Array> {
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  const iterator = events[Symbol.asyncIterator]();

  return new ReadableStream<Uint8Array>({
    start(controller) {
      // Not awaited: start's promise would hold the stream in "starting" until the last event.
      void pump(controller);
    },
    cancel() {
      closed = true;
      clearTimeout(timer);
      abort();
      void iterator.return?.().catch(() => undefined);
    },
  });

  async function pump(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    timer = keepAlive(controller, keepAliveMs, () => closed);
    try {
      for (;;) {
        const next = await iterator.next();
        if (closed) return;
        if (next.done) break;
        controller.enqueue(dataEvent(next.value));
        timer.refresh();
      }
    } catch (error) {
      if (closed) return;
      onError?.(error);
      controller.enqueue(streamErrorEvent(error));
    } finally {
      clearTimeout(timer);
    }
    if (closed) return;
    closed = true;
    controller.enqueue(DONE);
    controller.close();
  }
}

/** A finished list of events as a stream (replays). */
export async function* eventsOf<T>(values: readonly T[]): AsyncGenerator<T> {
  yield* values;
}
