import { type ChatMessage, invalid, type ToolCall } from '@memgate/core';
import type { InputItem, ResponsesRequest } from './schema.ts';

/**
 * `input` as chat messages, and for each message the input items it stands for: route A filters and injects on the
 * messages and sends the items of the kept ones; route B sends the messages themselves.
 */
export interface InputConversation {
  messages: ChatMessage[];
  itemsOf: Map<ChatMessage, unknown[]>;
}

type Part = { type?: unknown; text?: unknown; refusal?: unknown; image_url?: unknown; detail?: unknown } & Record<
  string,
  unknown
>;

const TEXT_PARTS = new Set(['input_text', 'output_text', 'text']);

/**
 * A message's content for chat: route B (`strict`) sends it to a chat model, text parts joined (what most upstreams
 * read best), else chat parts. Route A sends the caller's items and only reads the text (scoring, search, capture):
 * there the text parts as chat text parts, read as every chat message's parts are (messageText, one part a line);
 * other parts are left out rather than refused.
 */
function chatContent(content: unknown, at: string, strict: boolean): ChatMessage['content'] {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) throw badInput('content must be a string or an array of content parts', `${at}.content`);
  const parts = content as Part[];
  const isText = (part: Part) => TEXT_PARTS.has(String(part?.type)) || part?.type === 'refusal';
  if (!strict) {
    return parts
      .filter(isText)
      .map((part) =>
        part.type === 'refusal'
          ? { type: 'refusal', refusal: String(part.refusal ?? '') }
          : { type: 'text', text: String(part.text ?? '') },
      );
  }
  if (parts.every(isText)) {
    return parts
      .filter(isText)
      .map((part) => String(part.type === 'refusal' ? part.refusal : (part.text ?? '')))
      .join('');
  }
  return parts.map((part, index) => chatPart(part, `${at}.content[${index}]`)) as unknown as ChatMessage['content'];
}

function chatPart(part: Part, at: string): Record<string, unknown> {
  if (TEXT_PARTS.has(String(part?.type))) return { type: 'text', text: String(part.text ?? '') };
  if (part?.type === 'input_image' && typeof part.image_url === 'string') {
    return { type: 'image_url', image_url: { url: part.image_url, ...(part.detail ? { detail: part.detail } : {}) } };
  }
  if (part?.type === 'input_file') {
    const { type: _type, ...file } = part;
    return { type: 'file', file };
  }
  throw badInput(`content part type "${String(part?.type)}" cannot be sent to a chat-completions model`, `${at}.type`);
}

function textOf(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return (output as Part[]).map((part) => String(part?.text ?? '')).join('');
  return JSON.stringify(output ?? '');
}

/** Route B: item types a chat model has no place for, left out (a reasoning summary of an earlier turn). */
const DROPPED = new Set(['reasoning']);

/** A bad `input` is a bad conversation: code invalid_messages, like chat's `messages`. */
function badInput(message: string, field: string): Error {
  return invalid(message, field, 'invalid_messages');
}

/**
 * Reads `input` (DESIGN.md section 4: filtering, injection and capture apply to the `input` messages). Consecutive
 * function_call items become one assistant message with tool_calls (after the assistant's text, if any), a
 * function_call_output a tool message, so tool pairs stay whole when the history is filtered. `strict` (route B)
 * refuses items a chat model cannot take; otherwise (route A) any other item rides along with the next message.
 */
export function inputToMessages(input: ResponsesRequest['input'], strict: boolean): InputConversation {
  const itemsOf = new Map<ChatMessage, unknown[]>();
  if (typeof input === 'string') {
    const message: ChatMessage = { role: 'user', content: input };
    itemsOf.set(message, [{ role: 'user', content: input }]);
    return { messages: [message], itemsOf };
  }
  const messages: ChatMessage[] = [];
  let pending: unknown[] = [];
  const push = (message: ChatMessage, item: InputItem) => {
    messages.push(message);
    itemsOf.set(message, [...pending, item]);
    pending = [];
  };
  input.forEach((item, index) => {
    const at = `input[${index}]`;
    const type = item.type ?? 'message';
    if (type === 'message') {
      if (!item.role) throw badInput('a message needs a role', `${at}.role`);
      push({ role: item.role, content: chatContent(item.content, at, strict) }, item);
    } else if (type === 'function_call') {
      const call = functionCall(item, at);
      const previous = messages.at(-1);
      if (previous?.role === 'assistant' && pending.length === 0) {
        // Appended in place: a copy per call made 20,000 consecutive calls hold the loop 2 s.
        previous.tool_calls ??= [];
        previous.tool_calls.push(call);
        itemsOf.get(previous)?.push(item);
      } else {
        push({ role: 'assistant', content: null, tool_calls: [call] }, item);
      }
    } else if (type === 'function_call_output') {
      if (typeof item.call_id !== 'string') throw badInput('a function_call_output needs its call_id', `${at}.call_id`);
      push({ role: 'tool', tool_call_id: item.call_id, content: textOf(item.output) }, item);
    } else if (!strict) {
      pending.push(item);
    } else if (type === 'item_reference') {
      throw badInput(
        'item_reference needs stored responses; the default route is stateless: send the whole conversation (with the Vercel AI SDK: providerOptions.openai.store = false)',
        `${at}.type`,
      );
    } else if (!DROPPED.has(type)) {
      throw badInput(`input items of type "${type}" are not supported on the default route`, `${at}.type`);
    }
  });
  const last = messages.at(-1);
  // One by one: spread as arguments, 400,000 trailing items overflowed the stack (a 500).
  const items = last && itemsOf.get(last);
  if (items) for (const item of pending) items.push(item);
  if (messages.length === 0) throw badInput('input holds no message', 'input');
  return { messages, itemsOf };
}

function functionCall(item: InputItem, at: string): ToolCall {
  if (typeof item.call_id !== 'string' || typeof item.name !== 'string') {
    throw badInput('a function_call needs call_id and name', at);
  }
  const args = typeof item.arguments === 'string' ? item.arguments : JSON.stringify(item.arguments ?? {});
  return { id: item.call_id, type: 'function', function: { name: item.name, arguments: args } };
}

/** Route A: the items of the kept messages in order; a message the proxy added (context) becomes a system message. */
export function messagesToInput(messages: readonly ChatMessage[], itemsOf: Map<ChatMessage, unknown[]>): unknown[] {
  return messages.flatMap((message) => itemsOf.get(message) ?? [{ role: message.role, content: message.content }]);
}
