import type { TenantKey } from '../../auth/index.ts';
import type { Confirmation, ContextRepository, GenerationTag } from '../ports.ts';
import type { ContextStoreDeps } from './deps.ts';

/**
 * The current generation tags of `tenants`, strongly consistent; a tenant without a generation row gets one created
 * (once per tenant: a write), so what a search or an add proves visible can be confirmed at a tag from then on.
 */
export async function readTags(
  repository: ContextRepository,
  tenants: readonly TenantKey[],
): Promise<Map<TenantKey, GenerationTag>> {
  return completeTags(repository, tenants, await repository.readGenerations(tenants));
}

/** `tags` read for `tenants`, with the missing ones created (ensureGenerations). */
export async function completeTags(
  repository: ContextRepository,
  tenants: readonly TenantKey[],
  tags: Map<TenantKey, GenerationTag>,
): Promise<Map<TenantKey, GenerationTag>> {
  const missing = [...new Set(tenants)].filter((tenant) => !tags.has(tenant));
  if (missing.length > 0)
    for (const [tenant, tag] of await repository.ensureGenerations(missing)) tags.set(tenant, tag);
  return tags;
}

/**
 * Records verdicts in the index (VectorIndex.confirm), per tenant. A hint: a failure only costs a later search a row
 * read, so it is logged (`failure`) and fails nothing.
 */
export async function recordConfirmations(
  deps: ContextStoreDeps,
  confirmations: ReadonlyMap<TenantKey, readonly Confirmation[]>,
  failure: string,
): Promise<void> {
  const { index } = deps;
  const lists = [...confirmations].filter(([, list]) => list.length > 0);
  if (!index.confirm || lists.length === 0) return;
  try {
    await Promise.all(lists.map(([tenant, list]) => index.confirm?.(tenant, list)));
  } catch (error) {
    deps.log?.('warn', failure, { error: String(error) });
  }
}
