import {
  type ChatModel,
  type ContextStore,
  createCachedEmbedder,
  createExtractiveModel,
  type Embedder,
} from '@memgate/core';
import { createTargetGuard } from '../ssrf/index.ts';
import { createOperatorGuard } from '../ssrf/operator.ts';
import { createUpstreamModel } from '../upstream/index.ts';
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
  // The operator's own default upstream is trusted configuration: route A's SSRF policy (PROXY_ALLOW_PRIVATE_TARGETS,
  // PROXY_ALLOWED_HOSTS) neither applies to it nor has to be opened for it.
  const defaultGuard = createOperatorGuard({ variable: 'DEFAULT_MODEL_BASE_URL' });
  const defaultModel: ChatModel = config.DEFAULT_MODEL_BASE_URL
    ? createUpstreamModel({
        id: config.DEFAULT_MODEL_ID,
        baseUrl: config.DEFAULT_MODEL_BASE_URL,
        timeoutMs,
        guard: defaultGuard,
        ...(config.DEFAULT_MODEL_API_KEY ? { apiKey: config.DEFAULT_MODEL_API_KEY } : {}),
        ...(config.DEFAULT_MODEL_UPSTREAM_ID ? { upstreamModel: config.DEFAULT_MODEL_UPSTREAM_ID } : {}),
      })
    : createExtractiveModel({ clock: () => inputs.clock.now() });
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
