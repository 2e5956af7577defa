import type { ChatModel, ContextStore } from '@memgate/core';
import type { ServiceInputs } from './index.ts';

/** The streaming chat's dependencies. */
export function createChatServices(
  inputs: ServiceInputs,
  shared: { contextStore: ContextStore; defaultModel: ChatModel },
): Record<string, never> {
  void inputs;
  void shared;
  throw new Error('chat: not built yet');
}
