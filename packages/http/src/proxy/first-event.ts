import type { Readable } from 'node:stream';

/**
 * A chat-completion chunk's event (`data: {…}`). `data: [DONE]` is not one, nor a comment: a stream of only those
 * carries no answer (no id, no choice, no finish_reason), and the OpenAI SDK's stream helpers refuse it too ("request
 * ended without sending any chunks").
 */
export const CHUNK_EVENT = /^data:[ \t]*\{/m;

/** Bytes held while waiting for the first event (comments, `[DONE]`): past this the stream is forwarded as it is. */
const MAX_HELD_BYTES = 64 * 1024;

/** A stream's first chunk, back in front of the rest (forwarded as if never read), or how it ended without one. */
export type FirstEvent =
  | { kind: 'started'; source: AsyncIterable<Uint8Array> }
  | { kind: 'empty' }
  | { kind: 'failed' };

const isNodeReadable = (source: AsyncIterable<Uint8Array>): source is AsyncIterable<Uint8Array> & Readable =>
  typeof (source as Partial<Readable>).on === 'function' && typeof (source as Partial<Readable>).unshift === 'function';

/**
 * Waits for an upstream SSE stream's first chunk event, so that a stream that ends without one is answered as an
 * upstream failure (502) instead of a 200 with nothing in it. Nothing is held that the client waits for: what comes
 * before the first event (comments, a lone `[DONE]`) is no answer, and the first event itself goes out at once with
 * the status. Past `waitMs` of silence (the keep-alive interval) the stream starts anyway, as it did before.
 */
export function firstEvent(source: AsyncIterable<Uint8Array>, waitMs: number): Promise<FirstEvent> {
  return isNodeReadable(source) ? firstOfReadable(source, waitMs) : firstOfIterable(source, waitMs);
}

/** The upstream client's body: 'data' events, then paused with the bytes read put back (unshift) for the forwarder. */
function firstOfReadable(body: Readable, waitMs: number): Promise<FirstEvent> {
  return new Promise((resolve) => {
    const held: Uint8Array[] = [];
    let heldBytes = 0;
    let tail = '';
    const settle = (result: FirstEvent) => {
      clearTimeout(timer);
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onFailure);
      body.off('close', onClose);
      resolve(result);
    };
    const start = () => {
      body.pause();
      if (held.length > 0) body.unshift(held.length === 1 ? held[0] : Buffer.concat(held));
      settle({ kind: 'started', source: body });
    };
    const onData = (bytes: Uint8Array) => {
      held.push(bytes);
      heldBytes += bytes.length;
      // The event's start may straddle two chunks: the last few characters held before this one are looked at too.
      const text = tail + Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
      if (heldBytes > MAX_HELD_BYTES || CHUNK_EVENT.test(text)) start();
      else tail = text.slice(-16);
    };
    const onEnd = () => settle({ kind: 'empty' });
    const onFailure = () => settle({ kind: 'failed' });
    const onClose = () => {
      if (!body.readableEnded) onFailure();
    };
    const timer = setTimeout(start, waitMs);
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onFailure);
    body.on('close', onClose);
  });
}

/** Any other body (a model's own iterable): its iterator, the chunks read so far yielded again before the rest. */
async function firstOfIterable(source: AsyncIterable<Uint8Array>, waitMs: number): Promise<FirstEvent> {
  const iterator = source[Symbol.asyncIterator]();
  const held: Uint8Array[] = [];
  const decoder = new TextDecoder('latin1');
  let heldBytes = 0;
  let tail = '';
  let timer: NodeJS.Timeout | undefined;
  const silence = new Promise<'silent'>((wake) => {
    timer = setTimeout(() => wake('silent'), waitMs);
  });
  let pending: Promise<IteratorResult<Uint8Array>> | undefined;
  try {
    for (;;) {
      pending = iterator.next();
      const step = await Promise.race([pending, silence]);
      if (step === 'silent') {
        // Read later by the forwarder; until then a failure of it must not go unhandled.
        pending.catch(() => undefined);
        break;
      }
      pending = undefined;
      if (step.done) return { kind: 'empty' };
      held.push(step.value);
      heldBytes += step.value.length;
      const text = tail + decoder.decode(step.value);
      if (heldBytes > MAX_HELD_BYTES || CHUNK_EVENT.test(text)) break;
      tail = text.slice(-16);
    }
  } catch {
    return { kind: 'failed' };
  } finally {
    clearTimeout(timer);
  }
  return { kind: 'started', source: resumed(held, pending, iterator) };
}

async function* resumed(
  held: Uint8Array[],
  pending: Promise<IteratorResult<Uint8Array>> | undefined,
  iterator: AsyncIterator<Uint8Array>,
): AsyncIterable<Uint8Array> {
  let finished = false;
  try {
    yield* held;
    let step = pending ? await pending : await iterator.next();
    while (!step.done) {
      yield step.value;
      step = await iterator.next();
    }
    finished = true;
  } finally {
    // Stopped early (the client left, the time limit): the source is released.
    if (!finished) await iterator.return?.();
  }
}
