import { type ChatModel, createExtractiveModel, type ExactTokens } from '@memgate/core';
import { createOperatorGuard } from '../ssrf/operator.ts';
import { createUpstreamModel } from '../upstream/index.ts';
import type { ServiceInputs } from './index.ts';

/**
 * The model behind `memgate/default`: the operator's upstream when DEFAULT_MODEL_BASE_URL is set, else the embedded
 * extractive responder. `tokens` lets the responder honour `max_tokens` exactly; the chat stream, which never sets a
 * limit, builds it without them, so its function ships no tokenizer table.
 */
export function createDefaultModel(inputs: ServiceInputs, tokens?: ExactTokens): ChatModel {
  const { config } = inputs;
  if (!config.DEFAULT_MODEL_BASE_URL) {
    return createExtractiveModel({ clock: () => inputs.clock.now(), ...(tokens ? { tokens } : {}) });
  }
  return createUpstreamModel({
    id: config.DEFAULT_MODEL_ID,
    baseUrl: config.DEFAULT_MODEL_BASE_URL,
    timeoutMs: config.PROXY_UPSTREAM_TIMEOUT_MS,
    // The operator's own default upstream is trusted configuration: route A's SSRF policy (PROXY_ALLOW_PRIVATE_TARGETS,
    // PROXY_ALLOWED_HOSTS) neither applies to it nor has to be opened for it.
    guard: createOperatorGuard({ variable: 'DEFAULT_MODEL_BASE_URL' }),
    ...(config.DEFAULT_MODEL_API_KEY ? { apiKey: config.DEFAULT_MODEL_API_KEY } : {}),
    ...(config.DEFAULT_MODEL_UPSTREAM_ID ? { upstreamModel: config.DEFAULT_MODEL_UPSTREAM_ID } : {}),
  });
}
