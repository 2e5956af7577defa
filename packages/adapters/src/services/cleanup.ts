import { type CleanupReport, type ContextRepository, type ExpiringItems, runCleanup } from '@memgate/core';
import { createContextServices } from './context.ts';
import { createEmbedder } from './embedder.ts';
import type { ServiceInputs } from './index.ts';

export interface CleanupServices {
  /** One cleanup run that starts no new work after `deadline`. */
  run(deadline: Date): Promise<CleanupReport>;
}

/**
 * The scheduled cleanup's dependencies: the context repository, the runtime's vector index, the configured embedder
 * (to re-embed chunks left unindexed) and, where the chat runs, its expiring sessions and replays.
 */
export function createCleanupServices(
  inputs: ServiceInputs,
  { sessions }: { sessions?: ExpiringItems } = {},
): CleanupServices {
  const embedder = createEmbedder(inputs.config);
  // Typed loosely on purpose: the context services expose their repository once the DynamoDB one has landed.
  const { repository } = createContextServices(inputs, { embedder }) as { repository?: ContextRepository };
  if (!repository) throw new Error('cleanup: the context services expose no repository');
  return {
    run: (deadline) =>
      runCleanup({
        repository,
        index: inputs.vectorIndex,
        embedder,
        clock: inputs.clock,
        deadline,
        log: inputs.log,
        ...(sessions ? { sessions } : {}),
      }),
  };
}
