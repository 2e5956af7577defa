import {
  type ChatMessage,
  filterHistoryByRelevance,
  formatContextMessage,
  lastUserIndex,
  messageText,
  type Principal,
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

/** DESIGN.md section 4: history filtering, then context injection, each skipped entirely when switched off. */
export async function prepareMessages(
  deps: ProxyAreaDeps,
  logger: Logger,
  principal: Principal,
  original: ChatMessage[],
  switches: Switches,
): Promise<Prepared> {
  const last = lastUserIndex(original);
  const question = last >= 0 ? messageText(original[last] as ChatMessage) : '';
  let messages = original;
  let dropped = 0;
  let tokensSaved = 0;
  if (switches.filter && last >= 0) {
    const { settings } = deps;
    const result = await filterHistoryByRelevance(original, {
      embedder: deps.embedder,
      keepRecent: settings.keepRecent,
      minSimilarity: settings.historyMinSimilarity,
      tokenBudget: settings.historyTokenBudget,
      lexicalWeight: settings.historyLexicalWeight,
    });
    messages = result.messages;
    dropped = result.dropped;
    tokensSaved = result.tokensSaved;
  }
  let sources: string[] = [];
  if (switches.context && question.trim() !== '' && deps.settings.contextTopK > 0) {
    try {
      const hits = await deps.contextStore.search(principal, {
        query: question.slice(0, MAX_QUERY_CHARS),
        similarity_threshold: 1,
        minimum_similarity_threshold: deps.settings.contextMinSimilarity,
        top_k: deps.settings.contextTopK,
        scope: 'internal',
      });
      if (hits.length > 0) {
        const content = formatContextMessage(hits.map((hit) => ({ fileName: hit.fileName, text: hit.contextData })));
        messages = afterSystemMessages(messages, { role: 'system', content });
        sources = hits.map((hit) => hit.contextId);
      }
    } catch (error) {
      // Context is an enhancement: a failing search must not fail the completion.
      logger.error('proxy context search failed', { error: error instanceof Error ? error.message : String(error) });
    }
  }
  return {
    messages,
    question,
    sources,
    headers: {
      'x-memgate-history-kept': String(original.length - dropped),
      'x-memgate-history-dropped': String(dropped),
      'x-memgate-context-injected': String(sources.length),
      'x-memgate-tokens-saved': String(tokensSaved),
    },
  };
}
