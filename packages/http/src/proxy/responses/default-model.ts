import {
  type ChatCompletion,
  type ChatCompletionChunk,
  type ChatCompletionRequest,
  type ChatModel,
  MemgateError,
  readBoundedText,
  upstreamChunkPayloads,
  upstreamStreamFailed,
} from '@memgate/core';
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
  return {
    ok: true,
    value: parsedChunks(upstreamChunkPayloads(brokenNamed(raw.body))),
    headers: forwardedHeaders(raw.headers, 'operator'),
  };
}

/** The body's bytes, a connection that broke midway failing as what it is rather than as a bare internal error. */
async function* brokenNamed(body: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  try {
    yield* body;
  } catch {
    throw upstreamStreamFailed();
  }
}

async function* parsedChunks(payloads: AsyncIterable<string>): AsyncIterable<ChatCompletionChunk> {
  for await (const payload of payloads) {
    const chunk = parse<ChatCompletionChunk & { error?: unknown }>(payload);
    // An error event inside a 200 stream (some upstreams report late failures so).
    if (chunk.error) throw upstreamStreamFailed();
    yield chunk;
  }
}
