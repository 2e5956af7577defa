import type { ChatMessage } from '../model/index.ts';
import { createMessageTokens } from './message-tokens.ts';
import { createTimeSlice } from './time-slice.ts';

export interface HistoryFilterOptions {
  /** Similarity of message i to the last user message, in [0, 1]; only asked for optional (older) messages. */
  lastUserSimilarity: (index: number) => number;
  /** Messages right before the last user message that are always kept. */
  keepRecent: number;
  minSimilarity: number;
  /** Token budget for the whole kept history; required messages count against it first. */
  tokenBudget: number;
  /** Exact tokens of a message (tests); by default counted with a TokenMeter, and only where a decision needs it. */
  countTokens?: (message: ChatMessage) => number;
}

export interface HistoryFilterResult {
  messages: ChatMessage[];
  kept: number;
  dropped: number;
  tokensSaved: number;
}

/** Index of the last user message, or -1. */
export function lastUserIndex(messages: readonly ChatMessage[]): number {
  for (let index = messages.length - 1; index >= 0; index -= 1) if (messages[index]?.role === 'user') return index;
  return -1;
}

/**
 * Filters chat history for relevance (DESIGN.md section 4): system messages, the last user message, the `keepRecent`
 * messages before it and everything after it are always kept; an older message is kept only if similar enough to the
 * last user message and within the token budget (most similar first). Order is never changed.
 */
export async function filterHistory(
  messages: readonly ChatMessage[],
  options: HistoryFilterOptions,
): Promise<HistoryFilterResult> {
  const tokens = createMessageTokens(messages, options.countTokens);
  const budget = options.tokenBudget;
  const last = lastUserIndex(messages);
  const recentFrom = Math.max(0, last - options.keepRecent);
  const keep = new Array<boolean>(messages.length).fill(false);
  const required: number[] = [];
  const candidates: { index: number; similarity: number }[] = [];
  // 100,000 messages take a while to sort out: the loop is given back every few milliseconds.
  const slice = createTimeSlice();
  for (let index = 0; index < messages.length; index += 1) {
    const message = messages[index] as ChatMessage;
    if (slice.due()) await slice.giveWay();
    if (last < 0 || message.role === 'system' || message.role === 'developer' || index >= recentFrom) {
      keep[index] = true;
      required.push(index);
      continue;
    }
    const similarity = options.lastUserSimilarity(index);
    if (similarity >= options.minSimilarity) candidates.push({ index, similarity });
  }
  if (slice.due()) await slice.giveWay();
  candidates.sort((a, b) => b.similarity - a.similarity || b.index - a.index);
  const similar = candidates.map(({ index }) => index);
  if (slice.due()) await slice.giveWay();
  // When even upper bounds of the tokens fit the budget, every similar message is kept and nothing needs counting.
  if (fitsWithoutCounting([...required, ...similar], tokens.bound, budget)) {
    for (const index of similar) keep[index] = true;
  } else {
    let used = 0;
    for (const index of required) {
      const size = tokens.upTo(index, budget - used);
      used += typeof size === 'number' ? size : await size; // an await of a number costs a promise
      if (used > budget) break; // nothing optional can fit any more: the rest need no count
    }
    for (const index of similar) {
      if (used > budget) break;
      const counted = tokens.upTo(index, budget - used);
      const size = typeof counted === 'number' ? counted : await counted;
      if (used + size > budget) continue;
      keep[index] = true;
      used += size;
    }
  }
  keepToolPairs(messages, keep);
  const kept = messages.filter((_, index) => keep[index]);
  let tokensSaved = 0;
  for (let index = 0; index < messages.length; index += 1) {
    if (keep[index]) continue;
    const size = tokens.forReport(index);
    tokensSaved += typeof size === 'number' ? size : await size;
  }
  return { messages: kept, kept: kept.length, dropped: messages.length - kept.length, tokensSaved };
}

function fitsWithoutCounting(indexes: readonly number[], bound: (index: number) => number, budget: number): boolean {
  let total = 0;
  for (const index of indexes) {
    total += bound(index);
    if (total > budget) return false;
  }
  return true;
}

/** A tool's result, or a legacy function call's (role `function`, after an assistant `function_call`). */
const isResult = (message: ChatMessage) => message.role === 'tool' || message.role === 'function';

/**
 * A tool result without the assistant message that called it (or the reverse) is invalid upstream: drop both. One
 * pass each way, remembering the caller, so that a long run of tool messages costs linear time.
 */
function keepToolPairs(messages: readonly ChatMessage[], keep: boolean[]): void {
  let caller = -1; // the last message before the current run of tool messages
  messages.forEach((message, index) => {
    if (!isResult(message)) caller = index;
    else if (keep[index] && caller >= 0 && !keep[caller]) keep[index] = false;
  });
  // Walking backwards, `complete` tells whether every tool message after the current one (up to the next non-tool
  // message) is still kept: a caller keeps its results only when all of them are.
  let complete = true;
  let runEnd = messages.length; // exclusive end of the tool run that follows the current message
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index] as ChatMessage;
    if (isResult(message)) {
      if (!keep[index]) complete = false;
      continue;
    }
    if ((message.tool_calls?.length || message.function_call) && keep[index] && !complete) {
      keep[index] = false;
      for (let next = index + 1; next < runEnd; next += 1) keep[next] = false;
    }
    complete = true;
    runEnd = index;
  }
}
