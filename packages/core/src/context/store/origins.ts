import { type Principal, visibleTenants } from '../../auth/index.ts';
import type { ContextStoreDeps } from './deps.ts';

/** Where records came from: the organizations among them, and how many are gone or not the caller's to see. */
export interface Origins {
  organizations: string[];
  unknown: number;
}

/**
 * The organizations of records the caller just read (e.g. the context a proxy injected), so what is derived from
 * them can be stored where they live (DESIGN.md section 4). A record deleted since, or outside the caller's
 * partitions, counts as unknown: the caller decides what an unknown origin allows.
 */
export async function originsOf(
  deps: ContextStoreDeps,
  principal: Principal,
  contextIds: readonly string[],
): Promise<Origins> {
  const unique = [...new Set(contextIds)];
  if (unique.length === 0) return { organizations: [], unknown: 0 };
  const readable = new Set<string>(visibleTenants(principal));
  const records = (await deps.repository.getForSearch(unique)).filter((record) => readable.has(record.tenant));
  const organizations = new Set<string>();
  for (const record of records) {
    if (record.tenant.startsWith('org:')) organizations.add(record.tenant.slice('org:'.length));
  }
  return { organizations: [...organizations].sort(), unknown: unique.length - records.length };
}
