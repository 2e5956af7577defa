import type { ChatModel, ContextStore, Embedder } from '@memgate/core';
import type { ServiceInputs } from './index.ts';

/** The proxy's dependencies, plus the default model the chat reuses. */
export function createProxyServices(
  inputs: ServiceInputs,
  shared: { embedder: Embedder; contextStore: ContextStore },
): { defaultModel: ChatModel } {
  void inputs;
  void shared;
  throw new Error('proxy: not built yet');
}
