import { type ChatModel, type ContextStore, createCachedEmbedder, type Embedder, EXACT_TOKENS } from '@memgate/core';
import { createTargetGuard } from '../ssrf/index.ts';
import { createUpstreamModel } from '../upstream/index.ts';
import { createDefaultModel } from './default-model.ts';
import type { ServiceInputs } from './index.ts';

/** What the proxy area needs (packages/http ProxyAreaDeps), plus the default model the chat reuses. */
export function createProxyServices(
  inputs: ServiceInputs,
  shared: { embedder: Embedder; contextStore: ContextStore },
  overrides: { keepAliveMs?: number } = {},
) {
  const { config } = inputs;
  const guard = createTargetGuard({
    allowPrivate: config.PROXY_ALLOW_PRIVATE_TARGETS,
    allowedHosts: config.PROXY_ALLOWED_HOSTS,
  });
  const timeoutMs = config.PROXY_UPSTREAM_TIMEOUT_MS;
  const defaultModel = createDefaultModel(inputs, EXACT_TOKENS);
  return {
    contextStore: shared.contextStore,
    embedder: createCachedEmbedder({ embedder: shared.embedder }),
    defaultModel,
    defaultModelId: config.DEFAULT_MODEL_ID,
    upstreamFor: (baseUrl: string, apiKey: string): ChatModel =>
      createUpstreamModel({ baseUrl, apiKey, timeoutMs, guard }),
    settings: {
      keepRecent: config.PROXY_KEEP_RECENT,
      historyMinSimilarity: config.PROXY_HISTORY_MIN_SIMILARITY,
      historyTokenBudget: config.PROXY_HISTORY_TOKEN_BUDGET,
      historyLexicalWeight: config.HYBRID_LEXICAL_WEIGHT,
      contextTopK: config.PROXY_CONTEXT_TOP_K,
      contextMinSimilarity: config.PROXY_CONTEXT_MIN_SIMILARITY,
      keepAliveMs: overrides.keepAliveMs ?? 15_000,
      totalTimeoutMs: config.PROXY_TOTAL_TIMEOUT_MS,
    },
  };
}
