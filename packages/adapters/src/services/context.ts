import { type ContextRepository, type ContextStore, createContextStore, type Embedder } from '@memgate/core';
import { createDynamoContextRepository } from '../dynamodb/context-repository.ts';
import type { ServiceInputs } from './index.ts';

/** The context store and what it stands on (the repository is also what the cleanup works through). */
export function createContextServices(
  inputs: ServiceInputs,
  shared: { embedder: Embedder },
): { store: ContextStore; repository: ContextRepository } {
  const repository = createDynamoContextRepository({
    client: inputs.documentClient,
    tableName: inputs.tableName,
    clock: inputs.clock,
  });
  const store = createContextStore({
    repository,
    index: inputs.vectorIndex,
    embedder: shared.embedder,
    clock: inputs.clock,
    log: inputs.log,
  });
  return { store, repository };
}
