import { type ChatCompletionChunk, heldAnswerLimit, type ToolCall, type Usage } from '@memgate/core';
import {
  endOf,
  functionCallItem,
  itemId,
  messageItem,
  outputText,
  type ResponseShell,
  type ResponseStatus,
  type ResponseUsage,
  responseUsage,
} from './output.ts';

type Loose = Record<string, unknown>;
export type ResponseEvent = { type: string; sequence_number: number } & Loose;

interface OpenText {
  kind: 'message';
  id: string;
  index: number;
  text: string;
  status: ResponseStatus;
}
interface OpenCall {
  kind: 'call';
  id: string;
  index: number;
  call: ToolCall;
  status: ResponseStatus;
}

type ToolCallDelta = { index?: number; id?: string; function?: { name?: string; arguments?: string } };

/**
 * Route B, streamed: turns chat.completion.chunk payloads into the Responses event sequence (response.created,
 * response.in_progress, output_item.added, content_part.added, output_text.delta…, function_call_arguments.delta…,
 * the matching .done events, response.completed or response.incomplete). Each chat delta becomes one event, so
 * tool-call arguments arrive delta by delta, as the upstream sent them. The text and arguments are also held whole
 * for the .done events and response.completed: past MAX_UPSTREAM_BODY_BYTES (in characters) the stream fails, as an
 * upstream streaming without end grew them to V8's string limit.
 */
export function createResponseStream(shell: ResponseShell) {
  let sequence = 0;
  const items: (OpenText | OpenCall)[] = [];
  const calls = new Map<number, OpenCall>();
  let message: OpenText | undefined;
  let finishReason: string | null = null;
  let usage: ResponseUsage | null = null;
  const hold = heldAnswerLimit();

  const event = (type: string, fields: Loose): ResponseEvent => ({ type, sequence_number: sequence++, ...fields });
  const itemOf = (item: OpenText | OpenCall) =>
    item.kind === 'message'
      ? messageItem(item.id, item.text, item.status)
      : functionCallItem(item.id, item.call, item.status);
  const snapshot = (status: string, extra: Loose = {}) => ({
    ...shell,
    status,
    incomplete_details: null,
    output: items.map(itemOf),
    usage,
    ...extra,
  });

  function closeMessage(status: ResponseStatus = 'completed'): ResponseEvent[] {
    if (message?.status !== 'in_progress') return [];
    const { id, index, text } = message;
    message.status = status;
    message = undefined;
    const at = { item_id: id, output_index: index, content_index: 0 };
    return [
      event('response.output_text.done', { ...at, text, logprobs: [] }),
      event('response.content_part.done', { ...at, part: outputText(text) }),
      event('response.output_item.done', { output_index: index, item: messageItem(id, text, status) }),
    ];
  }

  function closeCall(open: OpenCall, status: ResponseStatus = 'completed'): ResponseEvent[] {
    if (open.status !== 'in_progress') return [];
    open.status = status;
    const { id, index, call } = open;
    return [
      event('response.function_call_arguments.done', {
        item_id: id,
        output_index: index,
        name: call.function.name,
        arguments: call.function.arguments,
      }),
      event('response.output_item.done', { output_index: index, item: functionCallItem(id, call, status) }),
    ];
  }

  function text(delta: string): ResponseEvent[] {
    const events: ResponseEvent[] = [];
    if (!message) {
      message = { kind: 'message', id: itemId('msg'), index: items.length, text: '', status: 'in_progress' };
      items.push(message);
      events.push(
        event('response.output_item.added', {
          output_index: message.index,
          item: messageItem(message.id, '', 'in_progress'),
        }),
        event('response.content_part.added', {
          item_id: message.id,
          output_index: message.index,
          content_index: 0,
          part: outputText(''),
        }),
      );
    }
    message.text += hold(delta);
    events.push(
      event('response.output_text.delta', {
        item_id: message.id,
        output_index: message.index,
        content_index: 0,
        delta,
        logprobs: [],
      }),
    );
    return events;
  }

  function toolCall(delta: ToolCallDelta): ResponseEvent[] {
    const key = delta.index ?? 0;
    const events: ResponseEvent[] = [];
    let open = calls.get(key);
    if (!open) {
      // A tool call after text: the text item is finished (OpenAI sends items one after the other).
      events.push(...closeMessage());
      const call: ToolCall = {
        id: delta.id ?? `call_${itemId('fc').slice(3, 27)}`,
        type: 'function',
        function: { name: delta.function?.name ?? '', arguments: '' },
      };
      open = { kind: 'call', id: itemId('fc'), index: items.length, call, status: 'in_progress' };
      calls.set(key, open);
      items.push(open);
      events.push(
        event('response.output_item.added', {
          output_index: open.index,
          item: functionCallItem(open.id, call, 'in_progress'),
        }),
      );
    } else if (delta.function?.name && open.call.function.name === '') {
      open.call.function.name = delta.function.name;
    }
    const args = delta.function?.arguments;
    if (args) {
      open.call.function.arguments += hold(args);
      events.push(
        event('response.function_call_arguments.delta', { item_id: open.id, output_index: open.index, delta: args }),
      );
    }
    return events;
  }

  return {
    /** response.created and response.in_progress. */
    start(): ResponseEvent[] {
      return [
        event('response.created', { response: snapshot('in_progress') }),
        event('response.in_progress', { response: snapshot('in_progress') }),
      ];
    },
    /** The events for one chat chunk (none for a chunk that only opens the message or carries usage). */
    push(chunk: ChatCompletionChunk): ResponseEvent[] {
      if (chunk.usage) usage = responseUsage(chunk.usage as Usage & Loose);
      const choice = chunk.choices?.[0];
      if (!choice) return [];
      const events: ResponseEvent[] = [];
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string' && delta.content !== '') events.push(...text(delta.content));
      for (const call of (delta.tool_calls as ToolCallDelta[] | undefined) ?? []) events.push(...toolCall(call));
      if (choice.finish_reason) finishReason = choice.finish_reason;
      return events;
    },
    /**
     * Closes every open item, then response.completed (or response.incomplete when the answer was cut: the last item,
     * the one being written when the model stopped, is incomplete too, as OpenAI marks it).
     */
    finish(): ResponseEvent[] {
      const end = endOf(finishReason);
      const statusOf = (item: OpenText | OpenCall) => (item === items.at(-1) ? end.status : 'completed');
      const events = message ? closeMessage(statusOf(message)) : [];
      for (const open of calls.values()) events.push(...closeCall(open, statusOf(open)));
      const type = end.status === 'completed' ? 'response.completed' : 'response.incomplete';
      events.push(event(type, { response: snapshot(end.status, { incomplete_details: end.incomplete_details }) }));
      return events;
    },
    /** The `error` event a failed stream ends with. */
    failure(message: string, code: string): ResponseEvent {
      return event('error', { code, message, param: null });
    },
    /** The answer's text so far (what the proxy stores as the exchange). */
    replyText(): string {
      return items.map((item) => (item.kind === 'message' ? item.text : '')).join('');
    },
  };
}

export type ResponseStream = ReturnType<typeof createResponseStream>;
