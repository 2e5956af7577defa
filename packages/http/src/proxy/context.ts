import {
  type ChatMessage,
  filterHistoryByRelevance,
  formatContextMessage,
  lastUserIndex,
  messageText,
  type Principal,
  searchDistinct,
} from '@memgate/core';
import type { Logger } from '../observability/logger.ts';
import type { ProxyAreaDeps } from './deps.ts';

export interface Switches {
  filter: boolean;
  context: boolean;
  store: boolean;
}

/** What a captured exchange is stored from: the last user message and the context records injected for it. */
export interface Exchange {
  question: string;
  /** Context ids of the records injected as context (empty when none were). */
  sources: string[];
}

export interface Prepared extends Exchange {
  messages: ChatMessage[];
  headers: Record<string, string>;
}

const MAX_QUERY_CHARS = 10_000;

/** Inserts `message` after the leading system/developer messages. */
function afterSystemMessages(messages: ChatMessage[], message: ChatMessage): ChatMessage[] {
  let at = 0;
  while (at < messages.length && (messages[at]?.role === 'system' || messages[at]?.role === 'developer')) at += 1;
  return [...messages.slice(0, at), message, ...messages.slice(at)];
}

/**
 * The kept history: every message, or those filterHistoryByRelevance keeps (DESIGN.md section 4). When it keeps
 * them all, the caller's own list: an unchanged request is then forwarded as the caller wrote it (forward.ts).
 */
async function filteredHistory(deps: ProxyAreaDeps, original: ChatMessage[], filter: boolean) {
  if (!filter || lastUserIndex(original) < 0) return { messages: original, dropped: 0, tokensSaved: 0 };
  const { settings } = deps;
  const filtered = await filterHistoryByRelevance(original, {
    embedder: deps.embedder,
    keepRecent: settings.keepRecent,
    minSimilarity: settings.historyMinSimilarity,
    tokenBudget: settings.historyTokenBudget,
    lexicalWeight: settings.historyLexicalWeight,
  });
  return filtered.dropped === 0 ? { ...filtered, messages: original } : filtered;
}

/** The caller's context for `question` (none when it is switched off, empty, or the search fails). */
async function contextFor(
  deps: ProxyAreaDeps,
  logger: Logger,
  principal: Principal,
  question: string,
  enabled: boolean,
): Promise<{ content: string; sources: string[] } | undefined> {
  if (!enabled || question.trim() === '' || deps.settings.contextTopK <= 0) return undefined;
  try {
    // Near-duplicates of a better hit (the same answer captured again in other words) do not take a slot.
    const hits = await searchDistinct(deps.contextStore, principal, {
      query: question.slice(0, MAX_QUERY_CHARS),
      similarity_threshold: 1,
      minimum_similarity_threshold: deps.settings.contextMinSimilarity,
      top_k: deps.settings.contextTopK,
      scope: 'internal',
    });
    if (hits.length === 0) return undefined;
    const content = formatContextMessage(hits.map((hit) => ({ fileName: hit.fileName, text: hit.contextData })));
    return { content, sources: hits.map((hit) => hit.contextId) };
  } catch (error) {
    // Context is an enhancement: a failing search must not fail the completion.
    logger.error('proxy context search failed', { error: error instanceof Error ? error.message : String(error) });
    return undefined;
  }
}

/**
 * DESIGN.md section 4: history filtering and context injection, each skipped entirely when switched off. They are
 * independent (the search asks with the last user message, which filtering always keeps), so they run together:
 * the filter's CPU work overlaps the search's wait on the database.
 */
export async function prepareMessages(
  deps: ProxyAreaDeps,
  logger: Logger,
  principal: Principal,
  original: ChatMessage[],
  switches: Switches,
): Promise<Prepared> {
  if (switches.filter || switches.context) deps.beforeMemoryWork?.();
  const last = lastUserIndex(original);
  const question = last >= 0 ? messageText(original[last] as ChatMessage) : '';
  const [history, context] = await Promise.all([
    filteredHistory(deps, original, switches.filter),
    contextFor(deps, logger, principal, question, switches.context),
  ]);
  const messages = context
    ? afterSystemMessages(history.messages, { role: 'system', content: context.content })
    : history.messages;
  const sources = context?.sources ?? [];
  return {
    messages,
    question,
    sources,
    headers: {
      'x-memgate-history-kept': String(original.length - history.dropped),
      'x-memgate-history-dropped': String(history.dropped),
      'x-memgate-context-injected': String(sources.length),
      'x-memgate-tokens-saved': String(history.tokensSaved),
    },
  };
}
