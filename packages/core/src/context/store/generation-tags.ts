import type { TenantKey } from '../../auth/index.ts';
import type { ContextRepository, GenerationTag } from '../ports.ts';

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
