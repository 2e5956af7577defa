import {
  type ChatModel,
  type ChatService,
  type ContextStore,
  createChatService,
  type SessionRepository,
} from '@memgate/core';
import { createDynamoSessionRepository } from '../dynamodb/session-repository.ts';
import type { ServiceInputs } from './index.ts';

/** What the chat area needs (packages/http ChatAreaDeps), plus the sessions repository the cleanup sweeps. */
export interface ChatServices {
  service: ChatService;
  sessions: SessionRepository;
  keepAliveMs: number;
  /** The longest one answer may take (PROXY_TOTAL_TIMEOUT_MS, as a proxied call: below the function's 5 minutes). */
  maxDurationMs: number;
}

/** The streaming chat on the shared context store and the proxy's default model (not a second model client). */
export function createChatServices(
  inputs: ServiceInputs,
  shared: { contextStore: ContextStore; defaultModel: ChatModel },
  overrides: { keepAliveMs?: number } = {},
): ChatServices {
  const { config, clock } = inputs;
  const sessions = createDynamoSessionRepository({ client: inputs.documentClient, tableName: inputs.tableName });
  const service = createChatService({
    sessions,
    contextStore: shared.contextStore,
    model: shared.defaultModel,
    clock,
    ttlDays: config.CHAT_TTL_DAYS,
    // The same context selection as the proxy's injection (DESIGN.md section 4).
    contextTopK: config.PROXY_CONTEXT_TOP_K,
    contextMinSimilarity: config.PROXY_CONTEXT_MIN_SIMILARITY,
  });
  return {
    service,
    sessions,
    keepAliveMs: overrides.keepAliveMs ?? 15_000,
    maxDurationMs: config.PROXY_TOTAL_TIMEOUT_MS,
  };
}
