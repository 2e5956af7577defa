import { createParser } from 'eventsource-parser';
import { DONE, dataEvent, keepAlive } from '../sse/index.ts';

const encoder = new TextEncoder();

export interface ForwardOptions {
  /** Upstream bytes (already SSE) to forward unchanged. */
  source: AsyncIterable<Uint8Array>;
  /** Called when the client goes away: aborts the upstream call. */
  abort: () => void;
  keepAliveMs: number;
  /** Receives each SSE `data:` payload when the reply must be captured (storing the exchange); undefined skips parsing. */
  onData?: (data: string) => void;
  /** Called once with whether the stream completed without an upstream failure. */
  onEnd: (ok: boolean) => void;
  /**
   * The protocol's ending: chat completions end with `data: [DONE]` (the default, added when the source did not
   * send it); the Responses API ends with its last event (`terminate: false`) and reports a failure its own way.
   */
  terminate?: boolean;
  failureEvent?: () => Uint8Array;
}

/**
 * Forwards an SSE byte stream as it arrives (no re-chunking), adds `: keep-alive` comments while the source is silent,
 * ends with `data: [DONE]` (added only if the source did not send it) and ends cleanly with an error event when the
 * source fails midway. Cancelling the returned stream (client disconnect) aborts the source.
 */
export function forwardSse({
  source,
  abort,
  keepAliveMs,
  onData,
  onEnd,
  terminate = true,
  failureEvent = chatFailureEvent,
}: ForwardOptions): ReadableStream<Uint8Array> {
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const decoder = new TextDecoder();
  let tail = '';
  const parser = onData ? createParser({ onEvent: (event) => onData(event.data) }) : undefined;

  return new ReadableStream<Uint8Array>({
    start(controller) {
      // Not awaited: start's promise would hold the stream in "starting" until the whole upstream answer is read.
      void pump(controller);
    },
    cancel() {
      closed = true;
      clearTimeout(timer);
      abort();
      onEnd(false);
    },
  });

  async function pump(controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> {
    timer = keepAlive(controller, keepAliveMs, () => closed);
    // refresh() re-arms the same timer: cheaper than clear + set on every forwarded chunk.
    const arm = () => timer?.refresh();
    let ok = true;
    try {
      for await (const bytes of source) {
        if (closed) return;
        controller.enqueue(bytes);
        arm();
        const text = decoder.decode(bytes, { stream: true });
        tail = (tail + text).slice(-64);
        parser?.feed(text);
      }
    } catch {
      ok = false;
      if (!closed) controller.enqueue(failureEvent());
    } finally {
      clearTimeout(timer);
    }
    if (closed) return;
    closed = true;
    if (terminate && (!ok || !/data: \[DONE\]\s*$/.test(tail))) controller.enqueue(DONE);
    controller.close();
    onEnd(ok);
  }
}

function chatFailureEvent(): Uint8Array {
  return dataEvent({
    error: { message: 'upstream stream failed', type: 'server_error', param: null, code: 'upstream_stream_failed' },
  });
}

/** A ChatModel's payload strings as SSE bytes (`data: ...` events), for models without a raw passthrough. */
export async function* payloadsAsSse(payloads: AsyncIterable<string>): AsyncIterable<Uint8Array> {
  for await (const payload of payloads) yield encoder.encode(`data: ${payload}\n\n`);
  yield DONE;
}
