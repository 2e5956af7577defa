import { createParser } from 'eventsource-parser';
import { MemgateError } from '../errors/index.ts';
import { MAX_UPSTREAM_BODY_BYTES, upstreamResponseTooLarge } from './bounded-body.ts';

/** A chunk naming why the model stopped ("finish_reason":"stop", …; null while it streams). */
export const FINISH_REASON = /"finish_reason"\s*:\s*"/;

/** An upstream's answer that held no event (an HTML error page, plain text, a lone `[DONE]`): a broken upstream. */
export function upstreamAnsweredWithoutEvents(): MemgateError {
  return new MemgateError('upstream_unavailable', 'upstream_invalid_response', 'upstream answered without events');
}

/** An upstream's stream that broke midway, or reported a failure inside it. */
export function upstreamStreamFailed(): MemgateError {
  return new MemgateError('upstream_unavailable', 'upstream_stream_failed', 'upstream stream failed');
}

/**
 * The data of each event of an upstream's chat.completion.chunk stream, up to its `data: [DONE]` (not yielded).
 * Refused: an event left unfinished past MAX_UPSTREAM_BODY_BYTES (the parser would hold all of it), a body with no
 * chunk event (an HTML error page, plain text, a lone `[DONE]`: a broken upstream, not an empty answer; the OpenAI
 * SDK's stream helpers refuse one too), and one closed cleanly with neither [DONE] nor a finish_reason (a proxy or
 * server closing early: the text so far is not the answer).
 */
export async function* upstreamChunkPayloads(body: AsyncIterable<Uint8Array>): AsyncIterable<string> {
  const pending: string[] = [];
  // Characters fed since the last event: the parser holds an unfinished event, which must not grow without bound.
  let unfinished = 0;
  const parser = createParser({
    onEvent: (event) => {
      unfinished = 0;
      pending.push(event.data);
    },
  });
  const decoder = new TextDecoder();
  let events = 0;
  let finished = false;
  for await (const bytes of body) {
    const text = decoder.decode(bytes, { stream: true });
    unfinished += text.length;
    if (unfinished > MAX_UPSTREAM_BODY_BYTES) throw upstreamResponseTooLarge();
    parser.feed(text);
    for (const data of pending.splice(0)) {
      if (data === '[DONE]') {
        if (events === 0) throw upstreamAnsweredWithoutEvents();
        return;
      }
      events += 1;
      if (!finished && FINISH_REASON.test(data)) finished = true;
      yield data;
    }
  }
  if (events === 0) throw upstreamAnsweredWithoutEvents();
  if (!finished) {
    throw new MemgateError('upstream_unavailable', 'upstream_stream_failed', 'upstream stream ended before the answer');
  }
}
