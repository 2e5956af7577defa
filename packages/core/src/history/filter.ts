import type { ChatMessage } from '../model/index.ts';
import { countMessageTokens } from './tokens.ts';

export interface HistoryFilterOptions {
  /** Similarity of message i to the last user message, in [0, 1]; only asked for optional (older) messages. */
  lastUserSimilarity: (index: number) => number;
  /** Messages right before the last user message that are always kept. */
  keepRecent: number;
  minSimilarity: number;
  /** Token budget for the whole kept history; required messages count against it first. */
  tokenBudget: number;
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
export function filterHistory(messages: readonly ChatMessage[], options: HistoryFilterOptions): HistoryFilterResult {
  const count = options.countTokens ?? countMessageTokens;
  const last = lastUserIndex(messages);
  const recentFrom = Math.max(0, last - options.keepRecent);
  const keep = new Array<boolean>(messages.length).fill(false);
  const tokens = messages.map((message) => count(message));
  let used = 0;
  const optional: { index: number; similarity: number }[] = [];
  messages.forEach((message, index) => {
    if (last < 0 || message.role === 'system' || message.role === 'developer' || index >= recentFrom) {
      keep[index] = true;
      used += tokens[index] ?? 0;
    } else {
      optional.push({ index, similarity: options.lastUserSimilarity(index) });
    }
  });
  optional.sort((a, b) => b.similarity - a.similarity || b.index - a.index);
  for (const { index, similarity } of optional) {
    if (similarity < options.minSimilarity) break;
    const size = tokens[index] ?? 0;
    if (used + size > options.tokenBudget) continue;
    keep[index] = true;
    used += size;
  }
  keepToolPairs(messages, keep);
  const kept = messages.filter((_, index) => keep[index]);
  let tokensSaved = 0;
  keep.forEach((isKept, index) => {
    if (!isKept) tokensSaved += tokens[index] ?? 0;
  });
  return { messages: kept, kept: kept.length, dropped: messages.length - kept.length, tokensSaved };
}

/** A tool result without the assistant message that called it (or the reverse) is invalid upstream: drop both. */
function keepToolPairs(messages: readonly ChatMessage[], keep: boolean[]): void {
  messages.forEach((message, index) => {
    if (message.role !== 'tool' || !keep[index]) return;
    let caller = index - 1;
    while (caller >= 0 && messages[caller]?.role === 'tool') caller -= 1;
    if (caller >= 0 && !keep[caller]) keep[index] = false;
  });
  messages.forEach((message, index) => {
    if (!message.tool_calls?.length || !keep[index]) return;
    for (let next = index + 1; next < messages.length && messages[next]?.role === 'tool'; next += 1) {
      if (!keep[next]) keep[index] = false;
    }
    if (!keep[index]) for (let next = index + 1; messages[next]?.role === 'tool'; next += 1) keep[next] = false;
  });
}
