import { type ChatCompletionRequest, type ChatModel, MemgateError, type Principal } from '@memgate/core';
import { forwardSse, payloadsAsSse } from './sse.ts';
import { forwardedHeaders, type UpstreamOwner } from './upstream-headers.ts';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};

export interface ForwardInput {
  model: ChatModel;
  request: ChatCompletionRequest;
  headers: Record<string, string>;
  /** Whose upstream answers: which of its headers the caller sees (route A: the caller's target; route B: ours). */
  upstreamOwner: UpstreamOwner;
  /** Aborted when the client disconnects. */
  clientSignal: AbortSignal;
  keepAliveMs: number;
  /** Called with the reply text after a successful completion (undefined: do not capture). */
  onReply?: (reply: string) => void;
}

function replyOf(completion: unknown): string {
  const choice = (completion as { choices?: { message?: { content?: unknown } }[] }).choices?.[0];
  return typeof choice?.message?.content === 'string' ? choice.message.content : '';
}

/** Collects streamed delta content from chunk payloads. */
function replyCollector(onReply: (reply: string) => void) {
  let text = '';
  return {
    onData(data: string) {
      if (data === '[DONE]') return;
      try {
        const content = (JSON.parse(data) as { choices?: { delta?: { content?: unknown } }[] }).choices?.[0]?.delta
          ?.content;
        if (typeof content === 'string') text += content;
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
  const { model, request, clientSignal, keepAliveMs, onReply } = input;
  let { headers } = input;
  const upstream = new AbortController();
  const abort = () => upstream.abort();
  clientSignal.addEventListener('abort', abort, { once: true });
  const options = { signal: upstream.signal };
  const collector = onReply ? replyCollector(onReply) : undefined;
  const noop = () => {};

  if (model.passthrough) {
    const started = performance.now();
    const raw = await model.passthrough(request, options);
    headers = withUpstreamTiming(headers, started);
    headers = { ...headers, ...forwardedHeaders(raw.headers, input.upstreamOwner) };
    if (raw.status >= 400) {
      // DESIGN.md section 4: an upstream error status and body pass through.
      return new Response(raw.body, { status: raw.status, headers: { ...headers, 'content-type': raw.contentType } });
    }
    if (request.stream && raw.contentType.includes('text/event-stream')) {
      const body = forwardSse({
        source: raw.body as unknown as AsyncIterable<Uint8Array>,
        abort,
        keepAliveMs,
        ...(collector ? { onData: collector.onData } : {}),
        onEnd: collector?.onEnd ?? noop,
      });
      return new Response(body, { status: 200, headers: { ...headers, ...SSE_HEADERS } });
    }
    const text = await new Response(raw.body).text();
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
    const body = forwardSse({
      source: payloadsAsSse(model.stream(request, options)),
      abort,
      keepAliveMs,
      ...(collector ? { onData: collector.onData } : {}),
      onEnd: collector?.onEnd ?? noop,
    });
    return new Response(body, { status: 200, headers: { ...headers, ...SSE_HEADERS } });
  }
  const started = performance.now();
  const completion = await model.complete(request, options);
  headers = withUpstreamTiming(headers, started);
  onReply?.(replyOf(completion));
  return new Response(JSON.stringify(completion), {
    status: 200,
    headers: { ...headers, 'content-type': 'application/json' },
  });
}

export type { Principal };
