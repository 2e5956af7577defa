import { type CleanupReport, type ExpiringItems, runCleanup } from '@memgate/core';
import { backfillDocumentNames } from '../dynamodb/document-names.ts';
import { createDynamoSessionRepository } from '../dynamodb/session-repository.ts';
import { createContextServices } from './context.ts';
import { createEmbedder } from './embedder.ts';
import type { ServiceInputs } from './index.ts';

/**
 * How long after this version first ran its names backfill may end: longer than any request of the previous version
 * (a Lambda runs 15 minutes at most) still writing document rows without name keys during the deploy.
 */
export const NAMES_SETTLE_MS = 30 * 60 * 1000;

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
    async run(deadline) {
      const report = await runCleanup({
        repository,
        index: inputs.vectorIndex,
        embedder,
        clock: inputs.clock,
        deadline,
        log: inputs.log,
        sessions,
        lexical: inputs.config.HYBRID_LEXICAL_WEIGHT > 0,
      });
      try {
        // Rows written before the indexes by name get their keys (document-names.ts); a no-op read once done.
        const names = await backfillDocumentNames(inputs.documentClient, inputs.tableName, {
          now: () => inputs.clock.now(),
          until: deadline,
          settleMs: NAMES_SETTLE_MS,
        });
        if (names.updated > 0 || !names.done) inputs.log?.('info', 'cleanup: document names backfill', { ...names });
      } catch (error) {
        report.complete = false;
        inputs.log?.('error', 'cleanup: document names backfill failed', { error: String(error) });
      }
      return report;
    },
  };
}
