import { type CleanupReport, type ExpiringItems, runCleanup } from '@memgate/core';
import { createDynamoSessionRepository } from '../dynamodb/session-repository.ts';
import { createContextServices } from './context.ts';
import { createEmbedder } from './embedder.ts';
import type { ServiceInputs } from './index.ts';

export interface CleanupServices {
  /** One cleanup run that starts no new work after `deadline`. */
  run(deadline: Date): Promise<CleanupReport>;
}

/**
 * The scheduled cleanup's dependencies: the context repository, the runtime's vector index, the configured embedder
 * (to re-embed chunks left unindexed) and the chat's expiring sessions and replays (same table by default).
 */
export function createCleanupServices(
  inputs: ServiceInputs,
  {
    sessions = createDynamoSessionRepository({ client: inputs.documentClient, tableName: inputs.tableName }),
  }: { sessions?: ExpiringItems } = {},
): CleanupServices {
  const embedder = createEmbedder(inputs.config);
  const { repository } = createContextServices(inputs, { embedder });
  return {
    run: (deadline) =>
      runCleanup({
        repository,
        index: inputs.vectorIndex,
        embedder,
        clock: inputs.clock,
        deadline,
        log: inputs.log,
        sessions,
        lexical: inputs.config.HYBRID_LEXICAL_WEIGHT > 0,
      }),
  };
}
