import {
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatCompletionRequest,
  type ChatModel,
  MemgateError,
  readBoundedText,
} from '@memgate/core';
import { createParser } from 'eventsource-parser';
import { operatorUpstreamError } from '../operator-error.ts';
import { forwardedHeaders } from '../upstream-headers.ts';

/** What the default model answered: parsed chat objects and the headers to forward, or an error response. */
export type ModelAnswer<T> =
  | { ok: true; value: T; headers: Record<string, string> }
  | { ok: false; response: Response };

const options = (signal: AbortSignal) => ({ signal });

function invalidJson(): MemgateError {
  return new MemgateError('upstream_unavailable', 'upstream_invalid_response', 'upstream answered with invalid JSON');
}

function parse<T>(text: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw invalidJson();
  }
}

/**
 * The default model's chat completion. An upstream model is called raw, so its error status (with the retry hints)
 * reaches the caller as route B's own error rather than a 502.
 */
export async function completeChat(
  model: ChatModel,
  request: ChatCompletionRequest,
  signal: AbortSignal,
  headers: Record<string, string>,
): Promise<ModelAnswer<ChatCompletion>> {
  if (!model.passthrough) return { ok: true, value: await model.complete(request, options(signal)), headers: {} };
  const raw = await model.passthrough({ ...request, stream: false }, options(signal));
  if (raw.status >= 400) return { ok: false, response: await operatorUpstreamError(raw, headers) };
  const value = parse<ChatCompletion>(await readBoundedText(raw.body));
  return { ok: true, value, headers: forwardedHeaders(raw.headers, 'operator') };
}

/** The default model's chat chunks, parsed; the upstream's status is known before the first chunk is asked for. */
export async function streamChat(
  model: ChatModel,
  request: ChatCompletionRequest,
  signal: AbortSignal,
  headers: Record<string, string>,
): Promise<ModelAnswer<AsyncIterable<ChatCompletionChunk>>> {
  if (!model.passthrough) {
    return { ok: true, value: parsedChunks(model.stream(request, options(signal))), headers: {} };
  }
  const raw = await model.passthrough({ ...request, stream: true }, options(signal));
  if (raw.status >= 400) return { ok: false, response: await operatorUpstreamError(raw, headers) };
  const end = { done: false };
  return {
    ok: true,
    value: parsedChunks(ssePayloads(raw.body, end), end),
    headers: forwardedHeaders(raw.headers, 'operator'),
  };
}

/** Whether an upstream's event stream reached its `data: [DONE]`. */
interface StreamEnd {
  done: boolean;
}

async function* ssePayloads(body: AsyncIterable<Uint8Array>, end: StreamEnd): AsyncIterable<string> {
  const pending: string[] = [];
  const parser = createParser({ onEvent: (event) => pending.push(event.data) });
  const decoder = new TextDecoder();
  const iterator = body[Symbol.asyncIterator]();
  for (;;) {
    let next: IteratorResult<Uint8Array>;
    try {
      next = await iterator.next();
    } catch {
      // The connection broke midway: the caller sees what failed, not a bare internal error.
      throw new MemgateError('upstream_unavailable', 'upstream_stream_failed', 'upstream stream failed');
    }
    if (next.done) return;
    parser.feed(decoder.decode(next.value, { stream: true }));
    for (const data of pending.splice(0)) {
      if (data === '[DONE]') {
        end.done = true;
        await iterator.return?.();
        return;
      }
      yield data;
    }
  }
}

/** Chunks parsed; with an upstream's `end`, one closed early is an error (the model's own stream ends as it ends). */
async function* parsedChunks(payloads: AsyncIterable<string>, end?: StreamEnd): AsyncIterable<ChatCompletionChunk> {
  let chunks = 0;
  let finished = false;
  for await (const payload of payloads) {
    const chunk = parse<ChatCompletionChunk & { error?: unknown }>(payload);
    // An error event inside a 200 stream (some upstreams report late failures so).
    if (chunk.error) throw new MemgateError('upstream_unavailable', 'upstream_stream_failed', 'upstream stream failed');
    chunks++;
    if (chunk.choices?.some((choice) => choice.finish_reason)) finished = true;
    yield chunk;
  }
  // Closed cleanly with neither [DONE] nor a finish_reason (a proxy or server closing early): the text so far is not
  // the answer. A body with no chunk at all is the route's own error.
  if (end && !end.done && !finished && chunks > 0) {
    throw new MemgateError('upstream_unavailable', 'upstream_stream_failed', 'upstream stream ended before the answer');
  }
}
