import type { Embedder } from '../context/ports.ts';
import { DEFAULT_LEXICAL_WEIGHT } from '../context/store/deps.ts';
import type { ChatMessage } from '../model/index.ts';
import { filterHistory, type HistoryFilterResult, lastUserIndex } from './filter.ts';
import { createMessageTermsCache, type MessageTermsCache } from './message-terms.ts';
import { hybridRelevance } from './relevance.ts';
import { createTimeSlice, type TimeSlice } from './time-slice.ts';
import { messageText } from './tokens.ts';

export { createCachedEmbedder } from './embedding-cache.ts';
export { filterHistory, type HistoryFilterOptions, type HistoryFilterResult, lastUserIndex } from './filter.ts';
export { createMessageTermsCache, type MessageTermsCache } from './message-terms.ts';
export { HISTORY_NEIGHBOUR_WINDOW, hybridRelevance, REPLY_SHARE } from './relevance.ts';
export { createTimeSlice, giveWay, type TimeSlice } from './time-slice.ts';
export {
  countMessageTokens,
  countPromptTokens,
  countTokens,
  createTokenMeter,
  EXACT_TOKENS,
  EXACT_TOKENS_PER_PASS,
  type ExactTokens,
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
  /** The lexical match's share of the relevance, as in search (HYBRID_LEXICAL_WEIGHT); 0: dense only. */
  lexicalWeight?: number;
  /** Where the messages' terms are remembered between requests (default: one cache for the whole process). */
  termsCache?: MessageTermsCache;
}

/** The history's terms, remembered across requests: a chat resends its whole history every turn. */
const PROCESS_TERMS_CACHE = createMessageTermsCache();

/**
 * Characters of a message that its relevance is scored on, the question's included (as search's query, 10,000):
 * embedding and reading terms cost time in a text's length, and one message of megabytes is scored in bounded time.
 */
export const SCORED_CHARS = 10_000;

const scoredText = (message: ChatMessage) => messageText(message).slice(0, SCORED_CHARS);

async function similarities(query: Float32Array, vectors: readonly Float32Array[], slice: TimeSlice) {
  const dense: number[] = [];
  for (const vector of vectors) {
    if (slice.due()) await slice.giveWay();
    dense.push(dot(query, vector));
  }
  return dense;
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let index = 0; index < a.length; index += 1) sum += (a[index] as number) * (b[index] as number);
  return Math.max(0, Math.min(1, sum));
}

/**
 * filterHistory with the hybrid relevance of search (hybridRelevance): the Embedder's similarity fused with a
 * lexical match over the request's own messages. Embeds and scores only the older messages that are not always kept,
 * each on its first SCORED_CHARS characters, giving the loop back every few milliseconds.
 */
export async function filterHistoryByRelevance(
  messages: readonly ChatMessage[],
  {
    embedder,
    keepRecent,
    minSimilarity,
    tokenBudget,
    lexicalWeight = DEFAULT_LEXICAL_WEIGHT,
    termsCache = PROCESS_TERMS_CACHE,
  }: RelevanceFilterOptions,
): Promise<HistoryFilterResult> {
  const last = lastUserIndex(messages);
  const candidates: number[] = [];
  for (let index = 0; index < Math.max(0, last - keepRecent); index += 1) {
    const role = messages[index]?.role;
    if (role !== 'system' && role !== 'developer') candidates.push(index);
  }
  const similarity = new Float64Array(messages.length);
  if (candidates.length > 0) {
    const slice = createTimeSlice();
    const question = scoredText(messages[last] as ChatMessage);
    const texts: string[] = [];
    for (const index of candidates) {
      if (slice.due()) await slice.giveWay();
      texts.push(scoredText(messages[index] as ChatMessage));
    }
    const [query] = await embedder.embed([question], 'query');
    const dense = await similarities(query as Float32Array, await embedder.embed(texts, 'document'), slice);
    const relevance = await hybridRelevance(texts, question, dense, { lexicalWeight, slice, termsCache });
    for (const [position, index] of candidates.entries()) similarity[index] = relevance[position] as number;
  }
  return filterHistory(messages, {
    lastUserSimilarity: (index) => similarity[index] as number,
    keepRecent,
    minSimilarity,
    tokenBudget,
  });
}
