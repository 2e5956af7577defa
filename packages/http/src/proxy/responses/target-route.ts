import { type ChatMessage, type ChatModel, MemgateError, readBoundedText } from '@memgate/core';
import { followClient, type ProxyCall, withinTotalTime } from '../call.ts';
import { prepareMessages } from '../context.ts';
import type { ForwardOptions, StreamFailure } from '../sse.ts';
import { forwardedHeaders } from '../upstream-headers.ts';
import { type InputConversation, inputToMessages, messagesToInput } from './input.ts';
import type { ResponsesRequest } from './schema.ts';
import { SSE_RESPONSE_HEADERS, sseEvent } from './sse-events.ts';

/** The text of a Response object's message items (what the proxy stores as the reply). */
function replyOf(response: unknown): string {
  const output = (response as { output?: { type?: string; content?: { type?: string; text?: unknown }[] }[] }).output;
  if (!Array.isArray(output)) return '';
  return output
    .filter((item) => item?.type === 'message')
    .flatMap((item) => item.content ?? [])
    .map((part) => (part?.type === 'output_text' && typeof part.text === 'string' ? part.text : ''))
    .join('');
}

/** The events a Responses stream ends with: without one, its upstream closed it on the way. */
const LAST_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

/**
 * Follows a forwarded Responses stream: the reply's text (for the exchange), the last sequence number and whether
 * the stream's last event came.
 */
function streamWatcher() {
  let text = '';
  let completed = false;
  let ended = false;
  let sequence = -1;
  return {
    onData(data: string) {
      try {
        const event = JSON.parse(data) as { type?: string; delta?: unknown; sequence_number?: unknown };
        if (typeof event.sequence_number === 'number') sequence = event.sequence_number;
        if (event.type === 'response.output_text.delta' && typeof event.delta === 'string') text += event.delta;
        if (event.type === 'response.completed') completed = true;
        if (typeof event.type === 'string' && LAST_EVENTS.has(event.type)) ended = true;
      } catch {
        // Not JSON: forwarded as is, nothing to follow.
      }
    },
    reply: () => (completed ? text : ''),
    ended: () => ended,
    failure: ({ message, code }: StreamFailure) =>
      sseEvent({
        type: 'error',
        code,
        message,
        param: null,
        sequence_number: sequence + 1,
      }),
  };
}

/**
 * The request with the kept `input` items and the injected context. When the target keeps the conversation
 * (`previous_response_id`, `conversation`), the context goes into `instructions` instead: items of `input` stay in
 * the conversation and are sent (and billed) again every later turn, so each turn's context piled up; `instructions`
 * are not carried over to the next response (OpenAI's Responses API), so each turn has its own context only.
 */
function relayedBody(
  request: ResponsesRequest,
  prepared: ChatMessage[],
  itemsOf: InputConversation['itemsOf'],
): object {
  const injected = prepared.find((message) => !itemsOf.has(message));
  const keepsConversation = Boolean(request.previous_response_id) || request.conversation != null;
  if (!injected || !keepsConversation) return { ...request, input: messagesToInput(prepared, itemsOf) };
  const context = String(injected.content);
  const kept = prepared.filter((message) => message !== injected);
  return {
    ...request,
    input: messagesToInput(kept, itemsOf),
    instructions: request.instructions ? `${request.instructions}\n\n${context}` : context,
  };
}

/**
 * Route A's Responses API (DESIGN.md section 4): the `input` messages are filtered and context injected as on chat
 * completions (into `instructions` when the target keeps the conversation: relayedBody); every other field goes to
 * the target's /responses unchanged, and its answer comes back byte for byte.
 */
export async function serveTargetResponses(
  call: ProxyCall,
  model: ChatModel,
  request: ResponsesRequest,
  /** The body as the caller wrote it: sent as is when filtering and context changed no `input` message. */
  callerJson: string,
): Promise<Response> {
  const relay = model.relay?.bind(model);
  if (!relay) throw new MemgateError('internal', 'internal_error', 'the target cannot serve the Responses API');
  const { deps } = call;
  const { messages, itemsOf } = inputToMessages(request.input, false);
  const prepared = await prepareMessages(deps, deps.logger, call.principal, messages, call.switches);
  const changed =
    prepared.messages.length !== messages.length || prepared.messages.some((message, at) => message !== messages[at]);
  const relayed = changed ? { body: relayedBody(request, prepared.messages, itemsOf) } : { body: request, callerJson };
  const upstream = followClient(call.clientSignal);
  const limit = deps.settings.totalTimeoutMs;
  return withinTotalTime(upstream, limit, async function relayResponses() {
    const raw = await relay({ method: 'POST', path: 'responses', ...relayed }, { signal: upstream.signal });
    const headers = { ...prepared.headers, ...forwardedHeaders(raw.headers, 'caller') };
    if (raw.status >= 400) {
      const text = await readBoundedText(raw.body);
      return new Response(text, { status: raw.status, headers: { ...headers, 'content-type': raw.contentType } });
    }
    if (request.stream && raw.contentType.includes('text/event-stream')) {
      const watcher = streamWatcher();
      const options: ForwardOptions = {
        source: raw.body,
        abort: () => upstream.abort(),
        keepAliveMs: deps.settings.keepAliveMs,
        maxDurationMs: limit,
        onData: watcher.onData,
        onEnd: (ok) => {
          if (ok) call.capture(prepared, watcher.reply());
        },
        terminate: false,
        failureEvent: watcher.failure,
        ended: watcher.ended,
      };
      return call.respondSse(options, { ...headers, ...SSE_RESPONSE_HEADERS });
    }
    const text = await readBoundedText(raw.body);
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new MemgateError(
        'upstream_unavailable',
        'upstream_invalid_response',
        'upstream answered with invalid JSON',
      );
    }
    call.capture(prepared, replyOf(parsed));
    return new Response(text, { status: 200, headers: { ...headers, 'content-type': 'application/json' } });
  });
}
