import { type Principal, type TenantKey, tenantOf, visibleTenants } from '../../auth/index.ts';
import { invalid } from '../../errors/index.ts';
import type { NamedDocument } from '../ports.ts';
import type { ContextRecord, RecordStatus } from '../record.ts';
import type { DeleteInput } from '../service.ts';
import { requireActingFor, requireMembership } from './access.ts';
import type { ContextStoreDeps } from './deps.ts';
import { removeDeleting } from './removal.ts';
import { bumpAfterHiding } from './visibility-cache.ts';

const LIVE: readonly RecordStatus[] = ['pending', 'indexed', 'failed'];
/** Documents per listing call: a slim entry is ~0.35 KB, so a page of them stays under a Query's 1 MB. */
const PAGE = 1000;

interface Narrowing {
  ownerId: string;
  tenants: TenantKey[];
}

/**
 * Whose records a delete may touch: the caller's by default; another user's only with `context:admin`, and only in
 * an organization they share. `organization_id` narrows to that organization, and `null` to personal records, as
 * it means on add: never to everything the caller sees, which would delete more than was asked.
 */
function narrowing(principal: Principal, input: DeleteInput): Narrowing {
  const organizationId = input.organization_id;
  requireMembership(principal, organizationId);
  const ownerId = input.user_id ?? principal.userId;
  if (ownerId === principal.userId) {
    return {
      ownerId,
      tenants: organizationId === undefined ? visibleTenants(principal) : [tenantOf(ownerId, organizationId)],
    };
  }
  requireActingFor(principal, ownerId);
  if (organizationId === null) return { ownerId, tenants: [] };
  return {
    ownerId,
    tenants:
      organizationId === undefined
        ? principal.orgs.map((org) => tenantOf(ownerId, org))
        : [tenantOf(ownerId, organizationId)],
  };
}

/**
 * The record `by_id` names (a document hides its chunks), also when already `deleting`: then this delete moves
 * nothing but still bumps its tenant's generation before answering (deleteContext says why).
 */
async function targetsById(deps: ContextStoreDeps, principal: Principal, input: DeleteInput, scope: Narrowing) {
  const record = await deps.repository.get(input.source as string);
  if (!record || !scope.tenants.includes(record.tenant)) return [];
  if (input.user_id != null && record.user_id !== input.user_id) return [];
  requireActingFor(principal, record.user_id);
  return [record];
}

const isNamed = (document: NamedDocument, name: string) =>
  document.source === name || document.metadata.file_name === name;

/**
 * A tenant's documents whose source or file name is `name`: through the repository's index by name, or, until that
 * can answer, its whole slim listing (a cost that grows with the tenant). The match is checked here either way.
 */
async function documentsNamed(deps: ContextStoreDeps, tenant: TenantKey, name: string): Promise<NamedDocument[]> {
  const found = await deps.repository.findDocumentsNamed(tenant, name);
  if (found) return found.filter((document) => isNamed(document, name));
  const named: NamedDocument[] = [];
  let cursor: string | undefined;
  do {
    const page = await deps.repository.listDocumentNames(tenant, { limit: PAGE, cursor });
    named.push(...page.items.filter((document) => isNamed(document, name)));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return named;
}

/**
 * The documents `by_doc` names, owned by the narrowed user (also those already `deleting`, for deleteContext's bump).
 */
async function targetsByDocument(deps: ContextStoreDeps, input: DeleteInput, scope: Narrowing) {
  const found: NamedDocument[] = [];
  for (const tenant of scope.tenants) {
    for (const document of await documentsNamed(deps, tenant, input.source as string)) {
      if (document.user_id === scope.ownerId && document.tenant === tenant) found.push(document);
    }
  }
  return found;
}

/**
 * Takes the lone chunks this delete hid (or found hidden: an earlier attempt may have failed before this step) out of
 * their documents' children. A document being replaced or deleted meanwhile keeps its list: its writer decides it.
 */
async function unlistLoneChunks(
  deps: ContextStoreDeps,
  targets: readonly (ContextRecord | NamedDocument)[],
  hidden: readonly string[],
): Promise<void> {
  for (const target of targets) {
    if (!('kind' in target) || target.kind !== 'chunk') continue;
    if (target.status === 'deleting' || hidden.includes(target._id)) {
      await deps.repository.unlistChild(target.document_id, target._id);
    }
  }
}

/**
 * Delete (DESIGN.md section 3). Hides first (documents, or a lone chunk, move to `deleting`; a document's status
 * hides its chunks), then removes vectors, then rows (removeDeleting: never rows the same document got again
 * meanwhile). A lone chunk also leaves its document's children before the answer (unlistChild: a conditional
 * update of that one entry, never a rewrite of the document, which could race a concurrent delete or re-add), so the
 * views' `chunks` and children list what is left, and a re-add of the document writes the chunk again. Once hidden
 * and unlisted the delete is acknowledged: a later failure is left to the cleanup, which finishes from the
 * `deleting` rows. Before it answers, the delete bumps the generation of the tenants it hid records in
 * (visibility-cache.ts), also when it found them `deleting` already: a concurrent delete, or an earlier attempt
 * whose bump failed, hid them and may not have bumped yet, and this 204 too promises they are never returned again.
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

  const live = targets.filter((record) => record.status !== 'deleting').map((record) => record._id);
  const hidden = live.length > 0 ? await deps.repository.transition(live, LIVE, 'deleting') : [];
  await bumpAfterHiding(deps.repository, targets);
  await unlistLoneChunks(deps, targets, hidden);
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
