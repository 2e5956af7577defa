import type { Embedder } from '../context/ports.ts';
import type { ChatMessage } from '../model/index.ts';
import { filterHistory, type HistoryFilterResult, lastUserIndex } from './filter.ts';
import { messageText } from './tokens.ts';

export { createCachedEmbedder } from './embedding-cache.ts';
export { filterHistory, type HistoryFilterOptions, type HistoryFilterResult, lastUserIndex } from './filter.ts';
export { createTimeSlice, giveWay, type TimeSlice } from './time-slice.ts';
export {
  countMessageTokens,
  countPromptTokens,
  countTokens,
  createTokenMeter,
  EXACT_TOKENS_PER_PASS,
  MESSAGE_FRAMING_TOKENS,
  messageText,
  type TokenMeter,
  truncateToTokens,
  utf8Length,
} from './tokens.ts';

export interface RelevanceFilterOptions {
  embedder: Embedder;
  keepRecent: number;
  minSimilarity: number;
  tokenBudget: number;
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < a.length; index += 1) sum += (a[index] as number) * (b[index] as number);
  return Math.max(0, Math.min(1, sum));
}

/** filterHistory with similarity from the Embedder; embeds only the older messages that are not always kept. */
export async function filterHistoryByRelevance(
  messages: readonly ChatMessage[],
  { embedder, keepRecent, minSimilarity, tokenBudget }: RelevanceFilterOptions,
): Promise<HistoryFilterResult> {
  const last = lastUserIndex(messages);
  const candidates: number[] = [];
  for (let index = 0; index < Math.max(0, last - keepRecent); index += 1) {
    const role = messages[index]?.role;
    if (role !== 'system' && role !== 'developer') candidates.push(index);
  }
  const similarity = new Map<number, number>();
  if (candidates.length > 0) {
    const [query] = await embedder.embed([messageText(messages[last] as ChatMessage)], 'query');
    const vectors = await embedder.embed(
      candidates.map((index) => messageText(messages[index] as ChatMessage)),
      'document',
    );
    candidates.forEach((index, position) => {
      similarity.set(index, dot(query as Float32Array, vectors[position] as Float32Array));
    });
  }
  return filterHistory(messages, {
    lastUserSimilarity: (index) => similarity.get(index) ?? 0,
    keepRecent,
    minSimilarity,
    tokenBudget,
  });
}
