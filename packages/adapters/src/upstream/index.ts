import {
  type ChatCompletion,
  type ChatCompletionRequest,
  type ChatModel,
  type PassthroughOptions,
  type RawCompletionResponse,
  type RelayCall,
  readBoundedText,
  readUpTo,
  upstreamChunkPayloads,
} from '@memgate/core';
import { request as undiciRequest } from 'undici';
import type { TargetGuard } from '../ssrf/index.ts';
import { splitBaseUrl } from './endpoint.ts';
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

function ignore(): void {}

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
  const { base, query } = splitBaseUrl(guard.checkUrl(baseUrl));
  const auth: Record<string, string> = apiKey ? { authorization: `Bearer ${apiKey}` } : {};
  const postHeaders = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...auth };
  const getHeaders = { accept: 'application/json', ...auth };

  /**
   * One call to `{base}/{path}`: status, content type, headers and body bytes as the upstream sent them. undici's
   * `request`, not its `fetch`: no WHATWG Request, Response or stream objects around each call (measured: ~0.2 ms
   * of CPU per call instead of ~0.9 ms, bench/proxy-profile.ts), and it never follows a redirect.
   */
  async function send(
    path: string,
    init: { method: 'GET' } | { method: 'POST'; body: object; callerJson?: string | undefined },
    options: { signal?: AbortSignal },
  ): Promise<RawCompletionResponse> {
    const body = init.method === 'POST' ? bodyText(init.body, init.callerJson) : undefined;
    // One controller for the caller's signal and the time limit on the headers (AbortSignal.any costs more per call).
    const call = new AbortController();
    const abort = () => call.abort(options.signal?.reason);
    // Taken off once the body is closed (read, or destroyed) or the call failed: an AbortSignal outlives young
    // collections (Node 20), and the listener would keep the call's objects, undici's with them, reachable from it.
    const release = () => options.signal?.removeEventListener('abort', abort);
    if (options.signal?.aborted) abort();
    else options.signal?.addEventListener('abort', abort, { once: true });
    let timedOut = false;
    const timeout = setTimeout(() => {
      timedOut = true;
      call.abort();
    }, timeoutMs);
    try {
      const response = await undiciRequest(`${base}/${path}${query}`, {
        method: init.method,
        headers: init.method === 'GET' ? getHeaders : postHeaders,
        ...(body === undefined ? {} : { body }),
        signal: call.signal,
        dispatcher: guard.dispatcher,
      });
      // A body that fails (the call aborted, the upstream gone) with no reader yet must not become an uncaught
      // 'error' event: whoever iterates it still sees the failure.
      response.body.on('error', ignore);
      response.body.once('close', release);
      if (response.statusCode >= 300 && response.statusCode < 400) {
        response.body.destroy();
        throw redirectRefused(response.statusCode);
      }
      const contentType = response.headers['content-type'];
      return {
        status: response.statusCode,
        contentType: (Array.isArray(contentType) ? contentType[0] : contentType) ?? 'application/json',
        body: response.body,
        headers: response.headers,
      };
    } catch (error) {
      release();
      if (options.signal?.aborted) throw error;
      throw upstreamFailure(error, timedOut);
    } finally {
      clearTimeout(timeout);
    }
  }

  /**
   * What a POST sends: the caller's JSON as written when the proxy changed nothing and this model rewrites nothing
   * (no parse-then-stringify of a request it forwards as is: ~16 KB less garbage and a stringify saved for a
   * 20-message chat), else the request serialised, with the upstream model id when one is set.
   */
  function bodyText(request: object, callerJson: string | undefined): string {
    if (upstreamModel) return JSON.stringify({ ...request, model: upstreamModel });
    return callerJson ?? JSON.stringify(request);
  }

  function passthrough(request: ChatCompletionRequest, options: PassthroughOptions): Promise<RawCompletionResponse> {
    return send('chat/completions', { method: 'POST', body: request, callerJson: options.callerJson }, options);
  }

  function relay(call: RelayCall, options: { signal?: AbortSignal }): Promise<RawCompletionResponse> {
    const init =
      call.method === 'POST' ? { method: 'POST' as const, body: call.body, callerJson: call.callerJson } : call;
    return send(call.path, init, options);
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
    yield* upstreamChunkPayloads(raw.body as unknown as AsyncIterable<Uint8Array>);
  }

  return { id, complete, stream, passthrough, relay };
}

/** Error bodies are small; only their start is kept (the proxy reads OpenAI's `error.type`/`code` from it). */
const MAX_ERROR_BODY_BYTES = 64 * 1024;

async function statusError(raw: RawCompletionResponse): Promise<UpstreamStatusError> {
  return new UpstreamStatusError(raw.status, (await readUpTo(raw.body, MAX_ERROR_BODY_BYTES)).text);
}
