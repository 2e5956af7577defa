import { countPromptTokens, createTokenMeter } from '../history/index.ts';
import { heldAnswerLimit } from '../model/bounded-body.ts';
import type { ChatCompletionChunk, ChatMessage, ToolCall, Usage } from '../model/index.ts';

/** The answer assembled from a model's streamed chunks. */
export interface ComposedAnswer {
  content: string;
  model: string;
  usage: Usage;
  toolCalls: ToolCall[];
}

interface ToolCallDelta {
  index?: number;
  id?: string;
  function?: { name?: string; arguments?: string };
}

/**
 * Reads a chat.completion.chunk stream to its end: text, tool calls (merged by index), model and usage. The answer is
 * held whole until it is sent, so one larger than a non-streamed upstream body may be (MAX_UPSTREAM_BODY_BYTES, in
 * characters) is refused (heldAnswerLimit).
 */
export async function composeAnswer(
  payloads: AsyncIterable<string>,
  fallbackModel: string,
  prompt: readonly ChatMessage[],
): Promise<ComposedAnswer> {
  let content = '';
  let model = fallbackModel;
  let usage: Usage | undefined;
  const calls = new Map<number, ToolCall>();
  const hold = heldAnswerLimit();
  for await (const payload of payloads) {
    const chunk = JSON.parse(payload) as ChatCompletionChunk;
    if (typeof chunk.model === 'string' && chunk.model !== '') model = chunk.model;
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices ?? []) {
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string') content += hold(delta.content);
      for (const part of (delta.tool_calls ?? []) as ToolCallDelta[]) {
        const index = part.index ?? calls.size;
        const call = calls.get(index) ?? { id: '', type: 'function', function: { name: '', arguments: '' } };
        if (part.id) call.id = part.id;
        if (part.function?.name) call.function.name += hold(part.function.name);
        if (part.function?.arguments) call.function.arguments += hold(part.function.arguments);
        calls.set(index, call);
      }
    }
  }
  return {
    content,
    model,
    usage: usage ?? (await estimateUsage(prompt, content)),
    toolCalls: [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call),
  };
}

/** Counted locally when the model reports no usage (some upstreams omit it in streams), with one bounded meter. */
async function estimateUsage(prompt: readonly ChatMessage[], content: string): Promise<Usage> {
  const meter = createTokenMeter();
  const completionTokens = await meter.count(content);
  const promptTokens = await countPromptTokens(meter, prompt);
  return {
    prompt_tokens: promptTokens,
    completion_tokens: completionTokens,
    total_tokens: promptTokens + completionTokens,
  };
}
