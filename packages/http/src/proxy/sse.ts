import { FINISH_REASON } from '@memgate/core';
import { createParser } from 'eventsource-parser';
import { DONE, dataEvent, keepAlive, overlongMessage } from '../sse/index.ts';
import { CHUNK_EVENT } from './first-event.ts';

const encoder = new TextEncoder();
const DONE_AT_END = /data: \[DONE\]\s*$/;
/** The end of the last chunk and the start of this one: what a pattern split between them needs. */
const seam = (tail: string, text: string) => tail.slice(-32) + text.slice(0, 32);

/**
 * An unfinished SSE event the capture parser may hold: beyond it the parser is reset (the bytes are still forwarded,
 * only not captured), so one endless line cannot grow the service's memory.
 */
const MAX_UNFINISHED_EVENT_CHARS = 1024 * 1024;

export interface ForwardOptions {
  /** Upstream bytes (already SSE) to forward unchanged. */
  source: AsyncIterable<Uint8Array>;
  /** Called when the client goes away or the time limit ends the stream: aborts the upstream call. */
  abort: () => void;
  keepAliveMs: number;
  /** The stream's time limit (PROXY_TOTAL_TIMEOUT_MS, what is left of it): then it ends with an error event. */
  maxDurationMs: number;
  /** Receives each SSE `data:` payload when the reply must be captured (storing the exchange); undefined skips parsing. */
  onData?: (data: string) => void;
  /** Called once with whether the stream completed without an upstream failure. */
  onEnd: (ok: boolean) => void;
  /**
   * The protocol's ending: chat completions end with `data: [DONE]` (the default, added when the source did not
   * send it); the Responses API ends with its last event (`terminate: false`) and reports a failure its own way.
   */
  terminate?: boolean;
  failureEvent?: (failure: StreamFailure) => Uint8Array;
  /**
   * A protocol that ends with an event of its own (the Responses API's response.completed, …): whether it came, read
   * from the events `onData` was given. A source that ends without it was cut on the way.
   */
  ended?: () => boolean;
}

/** Why a started stream ended early: the upstream broke, or the time limit passed. */
export interface StreamFailure {
  message: string;
  code: 'upstream_stream_failed' | 'upstream_timeout';
}

function chatFailureEvent({ message, code }: StreamFailure): Uint8Array {
  return dataEvent({ error: { message, type: 'server_error', param: null, code } });
}

/**
 * What every forwarder of an SSE byte stream shares (the web stream below, the Node response in sse-node.ts): the
 * capture of `data:` payloads, the tail that tells whether the source ended with `data: [DONE]`, and the bytes that
 * end the stream.
 */
export function sseRelay(options: ForwardOptions) {
  const { onData, maxDurationMs } = options;
  const { terminate = true, failureEvent = chatFailureEvent, ended } = options;
  const decoder = new TextDecoder();
  let tail = '';
  let unfinished = 0;
  // Whether a chunk event went by: a chat-completion stream without one is no answer (first-event.ts), however it ends.
  let answered = !terminate;
  // Whether a chunk named why the model stopped: a stream closed with neither that nor [DONE] was cut on the way.
  let finished = !terminate;
  // An event too long to parse was skipped (forwarded, not read): `ended` may not have seen the last event.
  let skipped = false;
  const parser = onData
    ? createParser({
        onEvent: (event) => {
          unfinished = 0;
          onData(event.data);
        },
        onComment: () => {
          unfinished = 0;
        },
      })
    : undefined;
  return {
    /** Follows a forwarded chunk: its `data:` payloads to `onData`, its end kept as the tail. */
    capture(bytes: Uint8Array): void {
      const text = decoder.decode(bytes, { stream: true });
      if (!answered) answered = CHUNK_EVENT.test(tail.slice(-16) + text);
      // Across the seam only when the last chunk ended inside an event (upstreams mostly write whole events).
      if (!finished)
        finished = FINISH_REASON.test(text) || (!tail.endsWith('\n') && FINISH_REASON.test(seam(tail, text)));
      tail = (tail + text.slice(-64)).slice(-64);
      if (!parser) return;
      unfinished += text.length;
      if (unfinished > MAX_UNFINISHED_EVENT_CHARS) {
        skipped = true;
        parser.reset();
        unfinished = 0;
        return;
      }
      parser.feed(text);
    },
    /**
     * How the stream ended: `failure`, else none unless no chunk event went by (an answer with nothing in it) or the
     * upstream closed with neither a finish_reason nor [DONE], or before `ended` (the text so far is not the whole
     * answer).
     */
    outcome(failure?: StreamFailure): StreamFailure | undefined {
      if (failure) return failure;
      if (!answered) return NO_EVENTS;
      if (DONE_AT_END.test(tail)) return undefined;
      if (ended && !skipped && !ended()) return CUT;
      return finished ? undefined : CUT;
    },
    /** What is sent last: the failure's event if any, then `data: [DONE]` unless the source sent it. */
    ending(failure?: StreamFailure): Uint8Array[] {
      const bytes = failure ? [failureEvent(failure)] : [];
      if (terminate && (failure || !DONE_AT_END.test(tail))) bytes.push(DONE);
      return bytes;
    },
    overlong(): StreamFailure {
      return { message: overlongMessage(maxDurationMs), code: 'upstream_timeout' };
    },
  };
}

export const UPSTREAM_STREAM_FAILED: StreamFailure = {
  message: 'upstream stream failed',
  code: 'upstream_stream_failed',
};

/** A stream that started (the upstream was silent past the keep-alive interval) and then ended with no answer. */
const NO_EVENTS: StreamFailure = { message: 'upstream answered without events', code: 'upstream_stream_failed' };
/** The message the upstream ChatModel gives for the same ending (upstreamChunkPayloads). */
const CUT: StreamFailure = { message: 'upstream stream ended before the answer', code: 'upstream_stream_failed' };

/**
 * Forwards an SSE byte stream as it arrives (no re-chunking), adds `: keep-alive` comments while the source is silent,
 * ends with `data: [DONE]` (added only if the source did not send it; unless `terminate: false`) and ends cleanly with an error event when the
 * source fails midway or the time limit passes. Pull-based (DESIGN.md section 4, "Size and time"): the next upstream
 * chunk is read only when the client has taken the last one, so a slow client slows the upstream (TCP backpressure)
 * instead of the service buffering its answer. Cancelling the returned stream (client disconnect) aborts the source.
 */
export function forwardSse(options: ForwardOptions): ReadableStream<Uint8Array> {
  const { source, abort, keepAliveMs, maxDurationMs, onEnd } = options;
  const iterator = source[Symbol.asyncIterator]();
  const relay = sseRelay(options);
  let keepAliveTimer: NodeJS.Timeout | undefined;
  let deadline: NodeJS.Timeout | undefined;
  let closed = false;

  function stop(): void {
    closed = true;
    clearTimeout(keepAliveTimer);
    clearTimeout(deadline);
  }

  function finish(controller: ReadableStreamDefaultController<Uint8Array>, failure?: StreamFailure): void {
    if (closed) return;
    stop();
    const outcome = relay.outcome(failure);
    for (const bytes of relay.ending(outcome)) controller.enqueue(bytes);
    controller.close();
    onEnd(outcome === undefined);
  }

  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        keepAliveTimer = keepAlive(controller, keepAliveMs, () => closed);
        deadline = setTimeout(function endOverlongStream() {
          if (closed) return;
          abort();
          void iterator.return?.().catch(() => undefined);
          finish(controller, relay.overlong());
        }, maxDurationMs);
      },
      async pull(controller) {
        let step: IteratorResult<Uint8Array>;
        try {
          step = await iterator.next();
        } catch {
          finish(controller, UPSTREAM_STREAM_FAILED);
          return;
        }
        if (closed) return;
        if (step.done) {
          finish(controller);
          return;
        }
        controller.enqueue(step.value);
        // refresh() re-arms the same timer: cheaper than clear + set on every forwarded chunk.
        keepAliveTimer?.refresh();
        relay.capture(step.value);
      },
      cancel() {
        if (closed) return;
        stop();
        abort();
        void iterator.return?.().catch(() => undefined);
        onEnd(false);
      },
    },
    // One chunk queued ahead of the client, one being read from the upstream: nothing more is held per client.
    { highWaterMark: 1 },
  );
}

/** A ChatModel's payload strings as SSE bytes (`data: ...` events), for models without a raw passthrough. */
export async function* payloadsAsSse(payloads: AsyncIterable<string>): AsyncIterable<Uint8Array> {
  for await (const payload of payloads) yield encoder.encode(`data: ${payload}\n\n`);
  yield DONE;
}
