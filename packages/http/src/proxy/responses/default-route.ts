import { type ChatCompletionChunk, isMemgateError, upstreamAnsweredWithoutEvents } from '@memgate/core';
import { checkModelCanServe, followClient, type ProxyCall, requireDefaultModel, withinTotalTime } from '../call.ts';
import { prepareMessages } from '../context.ts';
import { completeChat, streamChat } from './default-model.ts';
import { responseFromCompletion, responseShell } from './output.ts';
import type { ResponsesRequest } from './schema.ts';
import { SSE_RESPONSE_HEADERS, sseEvent } from './sse-events.ts';
import { createResponseStream } from './stream.ts';
import { RESPONSES_FIELD_OF, toChatRequest } from './to-chat.ts';

/**
 * Route B's Responses API (DESIGN.md section 4): translated to a chat completion for the default model (the
 * operator's upstream or the extractive responder), its answer translated back. Stateless: nothing is stored but
 * the exchange, as on chat completions.
 */
export async function serveDefaultResponses(call: ProxyCall, request: ResponsesRequest): Promise<Response> {
  const { deps } = call;
  requireDefaultModel(request.model, deps.defaultModelId);
  const chat = toChatRequest(request);
  const model = deps.defaultModel;
  checkModelCanServe(model, chat, RESPONSES_FIELD_OF);
  const prepared = await prepareMessages(deps, deps.logger, call.principal, chat.messages, call.switches);
  const chatRequest = { ...chat, messages: prepared.messages };
  const upstream = followClient(call.clientSignal);
  const limit = deps.settings.totalTimeoutMs;

  if (!request.stream) {
    const answer = await withinTotalTime(upstream, limit, () =>
      completeChat(model, chatRequest, upstream.signal, prepared.headers),
    );
    if (!answer.ok) return answer.response;
    const response = responseFromCompletion(responseShell(request, request.model), answer.value);
    const reply = response.output
      .map((item) => ((item as { type: string }).type === 'message' ? textOf(item) : ''))
      .join('');
    call.capture(prepared, reply);
    return Response.json(response, { headers: { ...prepared.headers, ...answer.headers } });
  }

  const answer = await withinTotalTime(upstream, limit, () =>
    streamChat(model, chatRequest, upstream.signal, prepared.headers),
  );
  if (!answer.ok) return answer.response;
  const chunks = answer.value;
  async function* events(): AsyncIterable<Uint8Array> {
    let stream: ReturnType<typeof createResponseStream> | undefined;
    const begin = (first?: ChatCompletionChunk) => {
      stream = createResponseStream(responseShell(request, first?.model || request.model));
      return stream.start();
    };
    try {
      for await (const chunk of chunks) {
        const before = stream ? [] : begin(chunk);
        for (const event of [...before, ...(stream?.push(chunk) ?? [])]) yield sseEvent(event);
      }
      // A body that held no chunk (an empty stream, a JSON or HTML page) is a broken upstream, not an empty answer.
      if (!stream) throw upstreamAnsweredWithoutEvents();
      for (const event of stream.finish()) yield sseEvent(event);
    } catch (error) {
      const detail = { error: error instanceof Error ? error.message : String(error) };
      // Aborted by the client's disconnect or by the stream's time limit (which sends its own event): not a failure.
      if (upstream.signal.aborted) deps.logger.info('proxy responses stream ended: its upstream call was aborted');
      else deps.logger.error('proxy responses stream failed', detail);
      const message =
        isMemgateError(error) && error.kind !== 'internal' ? error.message : 'the answer could not be completed';
      const code = isMemgateError(error) ? error.code : 'internal_error';
      if (!stream) for (const event of begin()) yield sseEvent(event);
      yield sseEvent((stream as NonNullable<typeof stream>).failure(message, code));
      return;
    }
    call.capture(prepared, stream?.replyText() ?? '');
  }
  const options = {
    source: events(),
    abort: () => upstream.abort(),
    keepAliveMs: deps.settings.keepAliveMs,
    maxDurationMs: limit,
    onEnd: () => {},
    terminate: false,
  };
  return call.respondSse(options, { ...prepared.headers, ...answer.headers, ...SSE_RESPONSE_HEADERS });
}

function textOf(item: unknown): string {
  const content = (item as { content?: { text?: string }[] }).content ?? [];
  return content.map((part) => part.text ?? '').join('');
}
