import { randomBytes } from 'node:crypto';
import type { ChatCompletion, ToolCall, Usage } from '@memgate/core';
import type { ResponsesRequest } from './schema.ts';

type Loose = Record<string, unknown>;

/** Ids in OpenAI's style: a type prefix and 48 hex digits. */
export function itemId(prefix: 'resp' | 'msg' | 'fc'): string {
  return `${prefix}_${randomBytes(24).toString('hex')}`;
}

export interface ResponseUsage {
  input_tokens: number;
  input_tokens_details: { cached_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

/** Chat usage in the Responses shape (prompt → input, completion → output, the details kept where known). */
export function responseUsage(usage: (Usage & Loose) | null | undefined): ResponseUsage | null {
  if (!usage) return null;
  const cached = (usage.prompt_tokens_details as Loose | undefined)?.cached_tokens;
  const reasoning = (usage.completion_tokens_details as Loose | undefined)?.reasoning_tokens;
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: typeof cached === 'number' ? cached : 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: typeof reasoning === 'number' ? reasoning : 0 },
    total_tokens: usage.total_tokens,
  };
}

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete';

/** A Response object without its output: what the request asked for, echoed as OpenAI does. */
export function responseShell(request: ResponsesRequest, model: string, created = new Date()) {
  const loose = request as Loose;
  return {
    id: itemId('resp'),
    object: 'response' as const,
    created_at: Math.floor(created.getTime() / 1000),
    model,
    background: false,
    error: null,
    instructions: request.instructions ?? null,
    max_output_tokens: request.max_output_tokens ?? null,
    metadata: (loose.metadata as Loose | undefined) ?? {},
    parallel_tool_calls: request.parallel_tool_calls ?? true,
    previous_response_id: null,
    reasoning: { effort: null, summary: null },
    // Route B keeps nothing: a stored response could not be fetched or continued.
    store: false,
    temperature: request.temperature ?? 1,
    text: { format: request.text?.format ?? { type: 'text' } },
    tool_choice: request.tool_choice ?? 'auto',
    tools: request.tools ?? [],
    top_p: request.top_p ?? 1,
    truncation: 'disabled',
    user: null,
  };
}

export type ResponseShell = ReturnType<typeof responseShell>;

/** How a chat finish reason ends a response. */
export function endOf(finishReason: string | null | undefined): {
  status: 'completed' | 'incomplete';
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
} {
  if (finishReason === 'length') return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (finishReason === 'content_filter')
    return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

export function messageItem(id: string, text: string, status: ResponseStatus) {
  return {
    id,
    type: 'message' as const,
    status,
    role: 'assistant' as const,
    content: status === 'in_progress' && text === '' ? [] : [outputText(text)],
  };
}

export function outputText(text: string) {
  return { type: 'output_text' as const, text, annotations: [], logprobs: [] };
}

export function functionCallItem(id: string, call: ToolCall, status: ResponseStatus) {
  return {
    id,
    type: 'function_call' as const,
    status,
    call_id: call.id,
    name: call.function.name,
    arguments: call.function.arguments,
  };
}

/** Route B, not streamed: a chat completion as a Response (text as one message item, each tool call an item). */
export function responseFromCompletion(shell: ResponseShell, completion: ChatCompletion) {
  const choice = completion.choices[0];
  const message = choice?.message;
  const text = typeof message?.content === 'string' ? message.content : '';
  const calls = message?.tool_calls ?? [];
  const end = endOf(choice?.finish_reason);
  const output = [
    ...(text !== '' || calls.length === 0 ? [messageItem(itemId('msg'), text, 'completed')] : []),
    ...calls.map((call) => functionCallItem(itemId('fc'), call, 'completed')),
  ];
  // The last item is the one the model was writing when it stopped: in a cut answer it is incomplete too, as OpenAI
  // marks it.
  const last = output.at(-1);
  if (last) last.status = end.status;
  return {
    ...shell,
    model: completion.model || shell.model,
    ...end,
    output,
    usage: responseUsage(completion.usage as (Usage & Loose) | undefined),
  };
}
