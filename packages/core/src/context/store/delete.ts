import { type Principal, type TenantKey, tenantOf, visibleTenants } from '../../auth/index.ts';
import { invalid } from '../../errors/index.ts';
import type { ContextRecord, RecordStatus } from '../record.ts';
import type { DeleteInput } from '../service.ts';
import { requireActingFor, requireMembership } from './access.ts';
import type { ContextStoreDeps } from './deps.ts';
import { removeDeleting } from './removal.ts';

const LIVE: readonly RecordStatus[] = ['pending', 'indexed', 'failed'];
const PAGE = 500;

interface Narrowing {
  ownerId: string;
  tenants: TenantKey[];
}

/** Whose records a delete may touch: the caller's by default; another user's only with `context:admin`. */
function narrowing(principal: Principal, input: DeleteInput): Narrowing {
  requireMembership(principal, input.organization_id);
  const ownerId = input.user_id ?? principal.userId;
  const orgTenants = input.organization_id != null ? [tenantOf(ownerId, input.organization_id)] : undefined;
  if (ownerId === principal.userId) return { ownerId, tenants: orgTenants ?? visibleTenants(principal) };
  requireActingFor(principal, ownerId);
  return { ownerId, tenants: orgTenants ?? principal.orgs.map((org) => tenantOf(ownerId, org)) };
}

/** The records `by_id` names: the record, and all its chunks when it is a document. */
async function targetsById(deps: ContextStoreDeps, principal: Principal, input: DeleteInput, scope: Narrowing) {
  const record = await deps.repository.get(input.source as string);
  if (!record || record.status === 'deleting' || !scope.tenants.includes(record.tenant)) return [];
  if (input.user_id != null && record.user_id !== input.user_id) return [];
  requireActingFor(principal, record.user_id);
  return [record];
}

/** The documents `by_doc` names: those whose source or file name equals `source`, owned by the narrowed user. */
async function targetsByDocument(deps: ContextStoreDeps, input: DeleteInput, scope: Narrowing) {
  const found: ContextRecord[] = [];
  for (const tenant of scope.tenants) {
    let cursor: string | undefined;
    do {
      const page = await deps.repository.listByTenant(tenant, { documentsOnly: true, limit: PAGE, cursor });
      for (const record of page.items) {
        const named = record.source === input.source || record.metadata.file_name === input.source;
        if (named && record.user_id === scope.ownerId && record.status !== 'deleting') found.push(record);
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }
  return found;
}

/**
 * Delete (DESIGN.md section 3). Hides first (documents, or a lone chunk, move to `deleting`; a document's status
 * hides its chunks), then removes vectors, then rows (removeDeleting: never rows the same document got again
 * meanwhile). A lone chunk stays listed in its document's children (no unconditional rewrite of the document, which
 * could race a concurrent delete); readers skip ids with no row. Once hidden the delete is acknowledged: a later
 * failure is left to the cleanup, which finishes from the `deleting` rows.
 */
export async function deleteContext(deps: ContextStoreDeps, principal: Principal, input: DeleteInput): Promise<void> {
  if (typeof input.source !== 'string' || input.source === '') {
    throw invalid('source is required (a context id with by_id, else a source or file name)', 'source');
  }
  const byId = input.by_id ?? false;
  if (!byId && input.by_doc === false) throw invalid('one of by_doc or by_id must be true', 'by_doc');
  const scope = narrowing(principal, input);
  const targets = byId ? await targetsById(deps, principal, input, scope) : await targetsByDocument(deps, input, scope);
  if (targets.length === 0) return;

  const hidden = await deps.repository.transition(
    targets.map((record) => record._id),
    LIVE,
    'deleting',
  );
  if (hidden.length === 0) return;
  try {
    await removeDeleting(deps, hidden);
  } catch (error) {
    deps.log?.('warn', 'context delete: records hidden, removal left to the cleanup', {
      records: hidden.length,
      error: String(error),
    });
  }
}
