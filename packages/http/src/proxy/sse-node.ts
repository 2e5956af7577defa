import type { ServerResponse } from 'node:http';
import { KEEP_ALIVE } from '../sse/index.ts';
import { type ForwardOptions, type StreamFailure, sseRelay, UPSTREAM_STREAM_FAILED } from './sse.ts';

/**
 * forwardSse for the local server: the same bytes, keep-alive comments, time limit, ending and capture, written to
 * the Node response as they arrive instead of passing a WHATWG ReadableStream that Hono's Node adapter then reads
 * chunk by chunk (each chunk one pull, one enqueue, one read and their promises: bench/OVER-BUDGET.md). The status
 * and `headers` are sent at once. The next upstream chunk is read as soon as the response takes the last one
 * without filling its buffer; when it is full, only once it has drained, so a slow client still slows the upstream
 * (DESIGN.md section 4, "Size and time"). The client leaving before the end aborts the source.
 */
export function forwardSseToNode(
  options: ForwardOptions,
  outgoing: ServerResponse,
  headers: Record<string, string>,
): void {
  const { source, abort, keepAliveMs, maxDurationMs, onEnd } = options;
  const iterator = source[Symbol.asyncIterator]();
  const relay = sseRelay(options);
  let closed = false;
  let drained: (() => void) | undefined;
  let flush: NodeJS.Immediate | undefined;

  function stop(): void {
    closed = true;
    clearTimeout(keepAliveTimer);
    clearTimeout(deadline);
    clearImmediate(flush);
    outgoing.off('close', onClose);
    outgoing.off('drain', onDrain);
    drained?.();
  }

  function finish(failure?: StreamFailure): void {
    if (closed) return;
    stop();
    for (const bytes of relay.ending(failure)) outgoing.write(bytes);
    outgoing.end();
    onEnd(failure === undefined);
  }

  function onClose(): void {
    // Before the answer ended: the client went away.
    if (closed) return;
    stop();
    abort();
    void iterator.return?.().catch(() => undefined);
    onEnd(false);
  }

  function onDrain(): void {
    const resume = drained;
    drained = undefined;
    resume?.();
  }

  const keepAliveTimer = setTimeout(function sendKeepAlive() {
    if (closed) return;
    // A client that is not reading already has something queued; more comments would only pile up.
    if (!outgoing.writableNeedDrain) outgoing.write(KEEP_ALIVE);
    keepAliveTimer.refresh();
  }, keepAliveMs);
  const deadline = setTimeout(function endOverlongStream() {
    if (closed) return;
    abort();
    void iterator.return?.().catch(() => undefined);
    finish(relay.overlong());
  }, maxDurationMs);

  async function pump(): Promise<void> {
    for (;;) {
      let step: IteratorResult<Uint8Array>;
      try {
        step = await iterator.next();
      } catch {
        finish(UPSTREAM_STREAM_FAILED);
        return;
      }
      if (closed) return;
      if (step.done) {
        finish();
        return;
      }
      const room = outgoing.write(step.value);
      // refresh() re-arms the same timer: cheaper than clear + set on every forwarded chunk.
      keepAliveTimer.refresh();
      relay.capture(step.value);
      if (!room && !closed) await new Promise<void>((resume) => (drained = resume));
      if (closed) return;
    }
  }

  if (outgoing.destroyed) {
    onClose();
    return;
  }
  outgoing.on('close', onClose);
  outgoing.on('drain', onDrain);
  outgoing.writeHead(200, headers);
  // The status and headers go with the first chunk when it is there already (one write, one packet to the client),
  // else on the next turn of the event loop: a client (the SDKs) answers its caller on them, without the first chunk.
  flush = setImmediate(function sendHeaders() {
    if (!outgoing.headersSent && !outgoing.destroyed) outgoing.flushHeaders();
  });
  void pump();
}
