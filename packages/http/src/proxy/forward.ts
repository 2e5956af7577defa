import {
  type ChatCompletionRequest,
  type ChatModel,
  MemgateError,
  type Principal,
  readBoundedText,
  upstreamAnsweredWithoutEvents,
  upstreamStreamFailed,
} from '@memgate/core';
import { overallTimeout } from './call.ts';
import { firstEvent } from './first-event.ts';
import { operatorUpstreamError } from './operator-error.ts';
import { payloadsAsSse } from './sse.ts';
import { type SseResponder, webSse } from './sse-response.ts';
import { MAX_CAPTURED_REPLY_CHARS } from './store.ts';
import { forwardedHeaders, type UpstreamOwner } from './upstream-headers.ts';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

export interface ForwardInput {
  model: ChatModel;
  request: ChatCompletionRequest;
  /** `request` as the caller wrote it, when nothing in it was changed: a passthrough sends it as is. */
  callerJson?: string;
  headers: Record<string, string>;
  /** Whose upstream answers (route A: the caller's target; route B: the operator's): its errors and headers shown. */
  upstreamOwner: UpstreamOwner;
  /** Aborted when the client disconnects. */
  clientSignal: AbortSignal;
  keepAliveMs: number;
  /** The whole call's time limit, from here to the last byte (PROXY_TOTAL_TIMEOUT_MS). */
  maxDurationMs: number;
  /** Called with the reply text after a successful completion (undefined: do not capture). */
  onReply?: (reply: string) => void;
  /** How a stream is answered (sse-response.ts); a Response over a web stream by default. */
  respondSse?: SseResponder;
}

function replyOf(completion: unknown): string {
  const choice = (completion as { choices?: { message?: { content?: unknown } }[] }).choices?.[0];
  const content = typeof choice?.message?.content === 'string' ? choice.message.content : '';
  return content.slice(0, MAX_CAPTURED_REPLY_CHARS);
}

type StreamedChoice = { index?: unknown; delta?: { content?: unknown } };

/**
 * Collects streamed delta content from chunk payloads, up to MAX_CAPTURED_REPLY_CHARS: the first choice's, as
 * replyOf takes of a whole completion. With `n` above 1 each chunk carries one choice, named by its index.
 */
function replyCollector(onReply: (reply: string) => void) {
  let text = '';
  return {
    onData(data: string) {
      if (data === '[DONE]' || text.length >= MAX_CAPTURED_REPLY_CHARS) return;
      try {
        const choices = (JSON.parse(data) as { choices?: StreamedChoice[] }).choices;
        const content = choices?.find((choice) => (choice.index ?? 0) === 0)?.delta?.content;
        if (typeof content === 'string') text += content.slice(0, MAX_CAPTURED_REPLY_CHARS - text.length);
      } catch {
        // Not JSON: forwarded as is, nothing to capture.
      }
    },
    onEnd(ok: boolean) {
      if (ok) onReply(text);
    },
  };
}

/**
 * `Server-Timing: upstream;dur=…`: how long the model took to answer (to its response headers when streaming),
 * for the caller and for the Lambda's upstream-latency metric.
 */
function withUpstreamTiming(headers: Record<string, string>, started: number): Record<string, string> {
  return { ...headers, 'server-timing': `upstream;dur=${(performance.now() - started).toFixed(1)}` };
}

function invalidUpstreamJson(): MemgateError {
  return new MemgateError('upstream_unavailable', 'upstream_invalid_response', 'upstream answered with invalid JSON');
}

/** Sends the prepared request to the model and shapes the HTTP response (raw bytes when the model allows). */
export async function forwardCompletion(input: ForwardInput): Promise<Response> {
  const { model, request, clientSignal, keepAliveMs, maxDurationMs, onReply, respondSse = webSse } = input;
  const started = Date.now();
  const upstream = new AbortController();
  const abort = () => upstream.abort();
  clientSignal.addEventListener('abort', abort, { once: true });
  // Until the answer is handed over (headers and, when not streamed, the whole body); a stream has its own limit.
  let timedOut = false;
  const deadline = setTimeout(() => {
    timedOut = true;
    abort();
  }, maxDurationMs);
  const left = () => Math.max(1, maxDurationMs - (Date.now() - started));
  const collector = onReply ? replyCollector(onReply) : undefined;
  let streaming = false;
  const streamed = (source: AsyncIterable<Uint8Array>, headers: Record<string, string>) => {
    streaming = true;
    const options = {
      source,
      abort,
      keepAliveMs,
      maxDurationMs: left(),
      ...(collector ? { onData: collector.onData } : {}),
      onEnd: collector?.onEnd ?? (() => {}),
    };
    return respondSse(options, { ...headers, ...SSE_HEADERS });
  };

  try {
    if (model.passthrough) {
      const timing = performance.now();
      const callerJson = input.callerJson === undefined ? {} : { callerJson: input.callerJson };
      const raw = await model.passthrough(request, { signal: upstream.signal, ...callerJson });
      const timed = withUpstreamTiming(input.headers, timing);
      const headers = { ...timed, ...forwardedHeaders(raw.headers, input.upstreamOwner) };
      if (raw.status >= 400) {
        // DESIGN.md section 4: route A passes an upstream error status and body through; route B answers in its own
        // words (the operator's body may name its organization or account).
        if (input.upstreamOwner === 'operator') return await operatorUpstreamError(raw, timed);
        const body = await readBoundedText(raw.body);
        return new Response(body, { status: raw.status, headers: { ...headers, 'content-type': raw.contentType } });
      }
      if (request.stream && raw.contentType.includes('text/event-stream')) {
        // A stream that ends before its first event is an upstream failure (502), told before the status is sent.
        const first = await firstEvent(raw.body, keepAliveMs);
        if (first.kind === 'empty') throw upstreamAnsweredWithoutEvents();
        if (first.kind === 'failed') throw upstreamStreamFailed();
        return streamed(first.source, headers);
      }
      const text = await readBoundedText(raw.body);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw invalidUpstreamJson();
      }
      onReply?.(replyOf(parsed));
      return new Response(text, { status: 200, headers: { ...headers, 'content-type': 'application/json' } });
    }

    if (request.stream) {
      return streamed(payloadsAsSse(model.stream(request, { signal: upstream.signal })), input.headers);
    }
    const timing = performance.now();
    const completion = await model.complete(request, { signal: upstream.signal });
    onReply?.(replyOf(completion));
    return new Response(JSON.stringify(completion), {
      status: 200,
      headers: { ...withUpstreamTiming(input.headers, timing), 'content-type': 'application/json' },
    });
  } catch (error) {
    if (timedOut) throw overallTimeout(maxDurationMs);
    throw error;
  } finally {
    clearTimeout(deadline);
    // The answer is read (a stream still reads it, and keeps the listener): a disconnect has nothing left to abort.
    // Left on, the listener keeps this call's objects reachable from the client's signal, and an AbortSignal
    // outlives young collections here (Node 20), so each scavenge copied them and promoted them with it.
    if (!streaming) clientSignal.removeEventListener('abort', abort);
  }
}

export type { Principal };
