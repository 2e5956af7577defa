import {
  type ContextRepository,
  type ContextStore,
  createContextStore,
  type Embedder,
  type RetrievalSettings,
} from '@memgate/core';
import type { Config } from '../config/index.ts';
import { createDynamoContextRepository } from '../dynamodb/context-repository.ts';
import type { ServiceInputs } from './index.ts';

/** Hybrid retrieval from configuration (README "Search score"). */
export function retrievalSettings(config: Config): RetrievalSettings {
  return {
    lexicalWeight: config.HYBRID_LEXICAL_WEIGHT,
    neighbours: {
      span: config.HYBRID_NEIGHBOUR_SPAN,
      before: config.HYBRID_NEIGHBOUR_BEFORE,
      after: config.HYBRID_NEIGHBOUR_AFTER,
    },
    speakerFactor: config.HYBRID_SPEAKER_FACTOR,
  };
}

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
    retrieval: retrievalSettings(inputs.config),
    visibilityCacheBytes: Math.round(inputs.config.SEARCH_CACHE_MB * 1024 * 1024),
  });
  return { store, repository };
}
