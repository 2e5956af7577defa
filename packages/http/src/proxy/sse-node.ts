import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { KEEP_ALIVE } from '../sse/index.ts';
import { type ForwardOptions, type StreamFailure, sseRelay, UPSTREAM_STREAM_FAILED } from './sse.ts';

/** How the source's chunks are taken: `take` returns whether the response has room for more. */
interface SourceReader {
  start(take: (bytes: Uint8Array) => boolean, end: (failure?: StreamFailure) => void): void;
  /** The response drained after `take` answered false. */
  resume(): void;
  /** Stops reading and releases the source (the client left, or the time limit ended the stream). */
  cancel(): void;
}

/** A Node stream (the upstream client's body): its 'data' events, the stream paused while the response is full. */
function readableReader(body: Readable): SourceReader {
  let detach = () => {};
  return {
    start(take, end) {
      const onData = (bytes: Uint8Array) => {
        if (!take(bytes)) body.pause();
      };
      const onEnd = () => {
        detach();
        end();
      };
      const onError = () => {
        detach();
        end(UPSTREAM_STREAM_FAILED);
      };
      // A body that ends without 'end' (destroyed) is a failure too.
      const onClose = () => {
        if (!body.readableEnded) onError();
      };
      detach = () => {
        body.off('data', onData);
        body.off('end', onEnd);
        body.off('error', onError);
        body.off('close', onClose);
      };
      // Destroyed between the first event's wait (first-event.ts) and here: no 'close' is coming.
      if (body.destroyed && !body.readableEnded) {
        end(UPSTREAM_STREAM_FAILED);
        return;
      }
      body.on('data', onData);
      body.on('end', onEnd);
      body.on('error', onError);
      body.on('close', onClose);
      // The wait for the first event leaves the body paused, its bytes put back in front.
      body.resume();
    },
    resume: () => body.resume(),
    cancel() {
      detach();
      body.destroy();
    },
  };
}

/** Any other source (a model's payloads as SSE): its async iterator, the next chunk asked for once there is room. */
function iteratorReader(source: AsyncIterable<Uint8Array>): SourceReader {
  const iterator = source[Symbol.asyncIterator]();
  let cancelled = false;
  let drained: (() => void) | undefined;
  const resume = () => {
    const waiting = drained;
    drained = undefined;
    waiting?.();
  };
  return {
    start(take, end) {
      void (async () => {
        for (;;) {
          let step: IteratorResult<Uint8Array>;
          try {
            step = await iterator.next();
          } catch {
            if (!cancelled) end(UPSTREAM_STREAM_FAILED);
            return;
          }
          if (cancelled) return;
          if (step.done) {
            end();
            return;
          }
          if (!take(step.value)) await new Promise<void>((wake) => (drained = wake));
          if (cancelled) return;
        }
      })();
    },
    resume,
    cancel() {
      cancelled = true;
      resume();
      void iterator.return?.().catch(() => undefined);
    },
  };
}

const isNodeReadable = (source: AsyncIterable<Uint8Array>): source is AsyncIterable<Uint8Array> & Readable =>
  typeof (source as Partial<Readable>).on === 'function' && typeof (source as Partial<Readable>).pause === 'function';

/**
 * forwardSse for the local server: the same bytes, keep-alive comments, time limit, ending and capture, written to
 * the Node response as they arrive instead of passing a WHATWG ReadableStream that Hono's Node adapter then reads
 * chunk by chunk (each chunk one pull, one enqueue, one read and their promises: bench/OVER-BUDGET.md); an upstream
 * body that is a Node stream is taken from its 'data' events, without an async iterator either. The status and
 * `headers` go with the first chunk, or on the next turn of the event loop when it is not there yet. While the
 * response's buffer is full the source is not read (paused), so a slow client still slows the upstream (DESIGN.md
 * section 4, "Size and time"). The client leaving before the end aborts the source.
 */
export function forwardSseToNode(
  options: ForwardOptions,
  outgoing: ServerResponse,
  headers: Record<string, string>,
): void {
  const { source, abort, keepAliveMs, maxDurationMs, onEnd } = options;
  const reader = isNodeReadable(source) ? readableReader(source) : iteratorReader(source);
  const relay = sseRelay(options);
  let closed = false;
  let flush: NodeJS.Immediate | undefined;

  function stop(): void {
    closed = true;
    clearTimeout(keepAliveTimer);
    clearTimeout(deadline);
    clearImmediate(flush);
    outgoing.off('close', onClose);
    outgoing.off('drain', onDrain);
  }

  function finish(failure?: StreamFailure): void {
    if (closed) return;
    stop();
    const outcome = relay.outcome(failure);
    for (const bytes of relay.ending(outcome)) outgoing.write(bytes);
    outgoing.end();
    onEnd(outcome === undefined);
  }

  function onClose(): void {
    // Before the answer ended: the client went away.
    if (closed) return;
    stop();
    abort();
    reader.cancel();
    onEnd(false);
  }

  function onDrain(): void {
    if (!closed) reader.resume();
  }

  function take(bytes: Uint8Array): boolean {
    if (closed) return false;
    const room = outgoing.write(bytes);
    // refresh() re-arms the same timer: cheaper than clear + set on every forwarded chunk.
    keepAliveTimer.refresh();
    relay.capture(bytes);
    return room;
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
    reader.cancel();
    finish(relay.overlong());
  }, maxDurationMs);

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
  reader.start(take, finish);
}
