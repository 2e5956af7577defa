import {
  type ChatCompletion,
  type ChatCompletionRequest,
  type ChatModel,
  MAX_UPSTREAM_BODY_BYTES,
  MemgateError,
  type RawCompletionResponse,
  type RelayCall,
  readBoundedText,
  readUpTo,
  upstreamResponseTooLarge,
} from '@memgate/core';
import { createParser } from 'eventsource-parser';
import { fetch } from 'undici';
import type { TargetGuard } from '../ssrf/index.ts';
import { redirectRefused, UpstreamStatusError, upstreamFailure } from './errors.ts';

export { UpstreamStatusError } from './errors.ts';

export interface UpstreamModelOptions {
  /** Base URL of an OpenAI-compatible API; `/chat/completions` (or `/responses`, `/models`) is appended. */
  baseUrl: string;
  apiKey?: string;
  /** `model` sent upstream instead of the caller's (DEFAULT_MODEL_UPSTREAM_ID). */
  upstreamModel?: string;
  /** Until response headers arrive; a silent stream after that is kept alive by the proxy, not cut. */
  timeoutMs: number;
  guard: TargetGuard;
  /** Model id the proxy reports for this backend. */
  id?: string;
}

/** An OpenAI-compatible upstream as a ChatModel, over undici with the SSRF-checking dispatcher. */
export function createUpstreamModel({
  baseUrl,
  apiKey,
  upstreamModel,
  timeoutMs,
  guard,
  id = 'upstream',
}: UpstreamModelOptions): ChatModel & {
  passthrough: NonNullable<ChatModel['passthrough']>;
  relay: NonNullable<ChatModel['relay']>;
} {
  const base = guard.checkUrl(baseUrl).href.replace(/\/+$/, '');
  const auth: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  const postHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...auth };
  const getHeaders = { accept: 'application/json', ...auth };

  /** One call to `{base}/{path}`: status, content type, headers and body bytes as the upstream sent them. */
  async function send(
    path: string,
    init: { method: 'GET' } | { method: 'POST'; body: object },
    options: { signal?: AbortSignal },
  ): Promise<RawCompletionResponse> {
    const body =
      init.method === 'POST'
        ? JSON.stringify(upstreamModel ? { ...init.body, model: upstreamModel } : init.body)
        : undefined;
    const timer = new AbortController();
    const timeout = setTimeout(() => timer.abort(), timeoutMs);
    const signal = options.signal ? AbortSignal.any([options.signal, timer.signal]) : timer.signal;
    try {
      const response = await fetch(`${base}/${path}`, {
        method: init.method,
        headers: init.method === 'GET' ? getHeaders : postHeaders,
        ...(body === undefined ? {} : { body }),
        signal,
        redirect: 'manual',
        dispatcher: guard.dispatcher,
      });
      if (response.status >= 300 && response.status < 400) {
        await response.body?.cancel();
        throw redirectRefused(response.status);
      }
      return {
        status: response.status,
        contentType: response.headers.get('content-type') ?? 'application/json',
        body: (response.body ?? new Response('').body) as ReadableStream<Uint8Array>,
        headers: response.headers as unknown as Headers,
      };
    } catch (error) {
      if (options.signal?.aborted) throw error;
      throw upstreamFailure(error, timer.signal.aborted);
    } finally {
      clearTimeout(timeout);
    }
  }

  function passthrough(
    request: ChatCompletionRequest,
    options: { signal?: AbortSignal },
  ): Promise<RawCompletionResponse> {
    return send('chat/completions', { method: 'POST', body: request }, options);
  }

  function relay(call: RelayCall, options: { signal?: AbortSignal }): Promise<RawCompletionResponse> {
    return send(call.path, call.method === 'POST' ? { method: 'POST', body: call.body } : { method: 'GET' }, options);
  }

  async function complete(request: ChatCompletionRequest, options: { signal?: AbortSignal }): Promise<ChatCompletion> {
    const raw = await passthrough({ ...request, stream: false }, options);
    if (raw.status >= 400) throw await statusError(raw);
    const text = await readBoundedText(raw.body);
    try {
      return JSON.parse(text) as ChatCompletion;
    } catch {
      throw upstreamFailure(new Error('upstream answered with invalid JSON'), false);
    }
  }

  async function* stream(request: ChatCompletionRequest, options: { signal?: AbortSignal }): AsyncIterable<string> {
    const raw = await passthrough({ ...request, stream: true }, options);
    if (raw.status >= 400) throw await statusError(raw);
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
    for await (const bytes of raw.body as unknown as AsyncIterable<Uint8Array>) {
      const text = decoder.decode(bytes, { stream: true });
      unfinished += text.length;
      if (unfinished > MAX_UPSTREAM_BODY_BYTES) throw upstreamResponseTooLarge();
      parser.feed(text);
      for (const data of pending.splice(0)) {
        if (data === '[DONE]') return;
        events += 1;
        yield data;
      }
    }
    // A body that held no event at all (an HTML error page, plain text) is a broken upstream, not an empty answer.
    if (events === 0) {
      throw new MemgateError('upstream_unavailable', 'upstream_invalid_response', 'upstream answered without events');
    }
  }

  return { id, complete, stream, passthrough, relay };
}

/** Error bodies are small; only their start is kept (the proxy reads OpenAI's `error.type`/`code` from it). */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

async function statusError(raw: RawCompletionResponse): Promise<UpstreamStatusError> {
  return new UpstreamStatusError(raw.status, (await readUpTo(raw.body, MAX_ERROR_BODY_BYTES)).text);
}
