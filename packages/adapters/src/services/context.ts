import type { ContextStore, Embedder } from '@memgate/core';
import type { ServiceInputs } from './index.ts';

/** The context store and what it stands on. */
export function createContextServices(inputs: ServiceInputs, shared: { embedder: Embedder }): { store: ContextStore } {
  void inputs;
  void shared;
  throw new Error('context store: not built yet');
}
