import type { ChatModel, ContextStore, Embedder } from '@memgate/core';

/** The proxy's tuning, read once from configuration (PROXY_*). */
export interface ProxySettings {
  keepRecent: number;
  historyMinSimilarity: number;
  historyTokenBudget: number;
  /** The lexical match's share of history relevance, as in search (HYBRID_LEXICAL_WEIGHT). */
  historyLexicalWeight: number;
  contextTopK: number;
  contextMinSimilarity: number;
  /** Interval of `: keep-alive` comments while the upstream is silent (15 s; shorter in tests). */
  keepAliveMs: number;
  /** PROXY_TOTAL_TIMEOUT_MS: the longest a proxied call may take, to its last byte (a stream then ends with an error). */
  totalTimeoutMs: number;
}

/** Background work started after a response (storing the exchange); tests await `idle()`. */
export interface BackgroundWork {
  run(task: () => Promise<unknown>): void;
  /**
   * Registers work held back to be done in batches (captured exchanges): `release` starts what is held, through
   * `run`. `idle()` releases everything first, so nothing held is left when it resolves.
   */
  holdBack(release: () => void): void;
  idle(): Promise<void>;
}

export interface ProxyAreaDeps {
  contextStore: ContextStore;
  /** For history relevance; wrap it in createCachedEmbedder so repeated messages are embedded once. */
  embedder: Embedder;
  /** Route B's model: the configured upstream or the extractive responder. */
  defaultModel: ChatModel;
  defaultModelId: string;
  /** Route A's model for one target; checks the base URL (400 invalid_target) before any connection. */
  upstreamFor(baseUrl: string, apiKey: string): ChatModel;
  settings: ProxySettings;
  background?: BackgroundWork;
  /**
   * Called before a request's history filtering or context search (not for a passthrough): the local server collects
   * its young generation there when it is filling, so that requests doing this work, which allocate the most, take
   * the scavenges rather than the passthroughs (packages/local/src/young-when-idle.ts).
   */
  beforeMemoryWork?: () => void;
}

/**
 * Tracks fire-and-forget tasks so they never delay a response yet can be awaited (tests, graceful shutdown, the
 * Lambda handler before its invocation ends).
 */
export function createBackgroundWork(onError: (error: unknown) => void): BackgroundWork {
  const pending = new Set<Promise<unknown>>();
  const held = new Set<() => void>();
  const releaseAll = () => {
    for (const release of held) release();
  };
  return {
    run(task) {
      const promise = task()
        .catch(onError)
        .finally(() => pending.delete(promise));
      pending.add(promise);
    },
    holdBack(release) {
      held.add(release);
    },
    async idle() {
      releaseAll();
      while (pending.size > 0) {
        await Promise.allSettled([...pending]);
        // What arrived while those ran, held for its own batch.
        releaseAll();
      }
    },
  };
}
