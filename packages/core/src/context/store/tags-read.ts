import type { TenantKey } from '../../auth/index.ts';
import { createLru, type Lru } from '../../cache/lru.ts';
import type { ContextRepository, GenerationTag } from '../ports.ts';
import { readTags } from './generation-tags.ts';

/** Tenants remembered as having answered a search with nothing (per store: one process). */
const QUIET_TENANTS = 10_000;

/**
 * Tenants whose last index query in this process returned no match at all: typically a user of the proxy who stored
 * nothing yet, whose every request searches. Their searches read the generation tags only if some match comes back,
 * instead of alongside the index query, so a search that finds nothing makes no DynamoDB call.
 */
export interface QuietTenants {
  has(tenant: TenantKey): boolean;
  /** What the tenant's index query just returned: no match makes it quiet, any match not. */
  answered(tenant: TenantKey, matches: number): void;
}

export function createQuietTenants(max = QUIET_TENANTS): QuietTenants {
  const quiet: Lru<TenantKey, true> = createLru({ maxWeight: max });
  return {
    has: (tenant) => quiet.get(tenant) !== undefined,
    answered(tenant, matches) {
      if (matches === 0) quiet.set(tenant, true);
      else quiet.delete(tenant);
    },
  };
}

/**
 * A search's read of its tenants' generation tags: started at once (beside the embedding and the index query) unless
 * every tenant is quiet, else on first need. Either way after the request arrived, which is all the tags' rule asks
 * (visibility-cache.ts): a hide acknowledged before the search began has bumped its tag before this read.
 */
export function tagsRead(
  repository: ContextRepository,
  tenants: readonly TenantKey[],
  { eager }: { eager: boolean },
): () => Promise<Map<TenantKey, GenerationTag>> {
  let read: Promise<Map<TenantKey, GenerationTag>> | undefined;
  const start = () => {
    read ??= readTags(repository, tenants);
    return read;
  };
  // Awaited when a hit needs it; this keeps an early failure of the embedder from leaving it unhandled.
  if (eager) start().catch(() => {});
  return start;
}
