import { randomUUID } from 'node:crypto';
import { invalid } from '../errors/index.ts';
import { lastUserIndex } from '../history/filter.ts';
import { countPromptTokens, createTokenMeter, type ExactTokens, messageText, utf8Length } from '../history/tokens.ts';
import type { ChatCompletion, ChatCompletionRequest, ChatModel, Usage } from '../model/index.ts';
import { type ContextPassage, parseContextMessage } from './context-message.ts';
import { selectSentences } from './select.ts';

export {
  CONTEXT_MESSAGE_MARKER,
  type ContextPassage,
  formatContextMessage,
  parseContextMessage,
} from './context-message.ts';
export { selectSentences, sentencesOf, termsOf } from './select.ts';

export const EXTRACTIVE_MODEL_ID = 'memgate/extractive';
export const NOTHING_STORED =
  'Nothing relevant to this question is stored in your context, so I cannot answer it from there.';
export const NOTHING_MATCHED =
  'Your stored context has passages near this topic, but none of their sentences answers this question.';

interface Answer {
  content: string;
  pieces: string[];
  finishReason: 'stop' | 'length';
  usage: Usage;
}

/** `max_completion_tokens` (current OpenAI name) or `max_tokens` (deprecated, still sent by many clients). */
function answerTokenLimit(request: ChatCompletionRequest): number | undefined {
  const limit = request.max_completion_tokens ?? request.max_tokens;
  return typeof limit === 'number' ? limit : undefined;
}

/**
 * Refuses, before any answer starts, what a quoting responder cannot honour: several choices, a JSON answer, a
 * forced tool call. Everything else it honours (max tokens, include_usage) or may ignore (sampling parameters).
 */
export function checkExtractiveRequest(request: ChatCompletionRequest): void {
  if (typeof request.n === 'number' && request.n !== 1) {
    throw invalid(`${EXTRACTIVE_MODEL_ID} gives one answer per request; n must be 1`, 'n');
  }
  const format = (request.response_format as { type?: unknown } | null | undefined)?.type;
  if (format !== undefined && format !== 'text') {
    throw invalid(
      `${EXTRACTIVE_MODEL_ID} answers in text by quoting stored context; response_format "${String(format)}" is not supported`,
      'response_format',
    );
  }
  const choice = request.tool_choice;
  if (choice === 'required' || (typeof choice === 'object' && choice !== null)) {
    throw invalid(`${EXTRACTIVE_MODEL_ID} never calls tools; tool_choice must be "auto" or "none"`, 'tool_choice');
  }
}

/** Builds the extractive answer: the best sentences of the injected context for the last user message. */
async function answer(request: ChatCompletionRequest, tokens: ExactTokens | undefined): Promise<Answer> {
  const passages: ContextPassage[] = request.messages
    .filter((message) => message.role === 'system' && typeof message.content === 'string')
    .flatMap((message) => parseContextMessage(message.content as string));
  const last = lastUserIndex(request.messages);
  const question = last >= 0 ? messageText(request.messages[last] as (typeof request.messages)[number]) : '';
  const chosen = passages.length === 0 ? [] : selectSentences(question, passages);
  let pieces = chosen.length > 0 ? chosen : [passages.length === 0 ? NOTHING_STORED : NOTHING_MATCHED];
  let finishReason: Answer['finishReason'] = 'stop';
  const limit = answerTokenLimit(request);
  // One meter for the answer: the request's messages can be megabytes (DESIGN.md §4, "Size and time").
  const meter = createTokenMeter(tokens ?? {});
  // The limit decides, so it is checked exactly; but an answer of no more UTF-8 bytes than the limit fits without
  // a count (every token is at least one byte), and then the tokenizer's table is never read.
  const answerText = pieces.join(' ');
  let cutAt: number | undefined;
  if (limit !== undefined && utf8Length(answerText) > limit && (await meter.countUpTo(answerText, limit)) > limit) {
    pieces = [(tokens as ExactTokens).truncate(answerText, limit)];
    finishReason = 'length';
    cutAt = limit;
  }
  const content = pieces.join(' ');
  // An answer cut at the limit used it all, as a model's would; otherwise its length is reported as an estimate.
  const completion = cutAt ?? (await meter.count(content));
  const prompt = 3 + (await countPromptTokens(meter, request.messages));
  return {
    content,
    pieces,
    finishReason,
    usage: { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion },
  };
}

/**
 * The embedded extractive responder (`memgate/extractive`): answers from the context the proxy injected by quoting
 * the sentences that best answer the last user message. It cannot decide to call tools: with `tools` it still answers
 * in text and never returns `tool_calls`. `tokens` (EXACT_TOKENS) cuts an answer at `max_tokens` exactly; a responder
 * built without it (the chat stream, which never sets a limit, so its function ships no tokenizer) refuses a limit.
 */
export function createExtractiveModel({
  clock = () => new Date(),
  tokens,
}: {
  clock?: () => Date;
  tokens?: ExactTokens;
} = {}): ChatModel {
  const created = () => Math.floor(clock().getTime() / 1000);
  function check(request: ChatCompletionRequest): void {
    checkExtractiveRequest(request);
    if (!tokens && answerTokenLimit(request) !== undefined) {
      const field = request.max_completion_tokens !== undefined ? 'max_completion_tokens' : 'max_tokens';
      throw invalid(`${EXTRACTIVE_MODEL_ID} counts no tokens here, so it cannot honour ${field}`, field);
    }
  }

  async function complete(request: ChatCompletionRequest): Promise<ChatCompletion> {
    const result = await answer(request, tokens);
    return {
      id: `chatcmpl-${randomUUID()}`,
      object: 'chat.completion',
      created: created(),
      model: EXTRACTIVE_MODEL_ID,
      choices: [
        { index: 0, message: { role: 'assistant', content: result.content }, finish_reason: result.finishReason },
      ],
      usage: result.usage,
    };
  }

  async function* stream(request: ChatCompletionRequest, options: { signal?: AbortSignal }): AsyncIterable<string> {
    const result = await answer(request, tokens);
    const base = {
      id: `chatcmpl-${randomUUID()}`,
      object: 'chat.completion.chunk',
      created: created(),
      model: EXTRACTIVE_MODEL_ID,
    };
    const chunk = (delta: Record<string, unknown>, finish: string | null) =>
      JSON.stringify({ ...base, choices: [{ index: 0, delta, finish_reason: finish }] });
    yield chunk({ role: 'assistant', content: '' }, null);
    for (let index = 0; index < result.pieces.length; index += 1) {
      if (options.signal?.aborted) return;
      yield chunk({ content: index === 0 ? result.pieces[index] : ` ${result.pieces[index]}` }, null);
    }
    yield chunk({}, result.finishReason);
    const streamOptions = request.stream_options as { include_usage?: boolean } | undefined;
    if (streamOptions?.include_usage) yield JSON.stringify({ ...base, choices: [], usage: result.usage });
  }

  return { id: EXTRACTIVE_MODEL_ID, complete, stream, check };
}
