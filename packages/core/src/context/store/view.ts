import type { Principal, TenantKey } from '../../auth/index.ts';
import { invalid } from '../../errors/index.ts';
import type { ContextRecord, Page } from '../record.ts';
import type { DocumentSummary, ViewInput } from '../service.ts';
import { readScope } from './access.ts';
import type { ContextStoreDeps } from './deps.ts';
import { isChunkOf } from './ids.ts';
import { visibleRecords } from './visibility.ts';

export const DEFAULT_VIEW_LIMIT = 100;
export const MAX_VIEW_LIMIT = 1000;

/** Position in a multi-partition listing: which of the caller's partitions, and the repository's cursor in it. */
interface ViewCursor {
  t: number;
  c: string | null;
}

function encodeCursor(cursor: ViewCursor): string {
  return Buffer.from(JSON.stringify(cursor)).toString('base64url');
}

/**
 * A cursor comes back from the caller: it must name one of the caller's partitions of this listing. The position
 * inside it (`c`) is the repository's to check, against the partition and index it is used on.
 */
function decodeCursor(text: string | undefined, partitions: number): ViewCursor {
  if (text === undefined || text === '') return { t: 0, c: null };
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as ViewCursor;
    const { t, c } = value ?? {};
    if (Number.isInteger(t) && t >= 0 && t < partitions && (c === null || (typeof c === 'string' && c !== ''))) {
      return { t, c };
    }
  } catch {
    // fall through to the 400 below
  }
  throw invalid('cursor is not a nextCursor this endpoint returned', 'cursor');
}

function limitOf(input: ViewInput): number {
  const limit = input.limit ?? DEFAULT_VIEW_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_VIEW_LIMIT) {
    throw invalid(`must be an integer from 1 to ${MAX_VIEW_LIMIT}`, 'limit');
  }
  return limit;
}

/**
 * Pages through the caller's partitions one after the other (each newest first), keeping only visible records
 * that match the filters. The cursor names the partition and the position inside it.
 */
async function listVisible(
  deps: ContextStoreDeps,
  principal: Principal,
  input: ViewInput,
  documentsOnly: boolean,
): Promise<Page<ContextRecord>> {
  const limit = limitOf(input);
  const { tenants, ownerId } = readScope(principal, { userId: input.user_id, organizationId: input.organization_id });
  const position = decodeCursor(input.cursor, tenants.length);
  const matches = (record: ContextRecord) =>
    (ownerId === undefined || record.user_id === ownerId) &&
    (input.context_type === undefined || record.context_type === input.context_type) &&
    (input.scope === undefined || record.scopes.includes(input.scope));
  const items: ContextRecord[] = [];
  let { t, c } = position;
  while (t < tenants.length && items.length < limit) {
    const page = await deps.repository.listByTenant(tenants[t] as TenantKey, {
      documentsOnly,
      limit: limit - items.length,
      ...(c ? { cursor: c } : {}),
    });
    items.push(...(await visibleRecords(deps.repository, page.items.filter(matches))));
    if (page.nextCursor) c = page.nextCursor;
    else {
      t += 1;
      c = null;
    }
  }
  return { items, nextCursor: t < tenants.length ? encodeCursor({ t, c }) : null };
}

/** Every visible record (documents and chunks), paginated. */
export function viewContext(deps: ContextStoreDeps, principal: Principal, input: ViewInput) {
  return listVisible(deps, principal, input, false);
}

/** One summary per visible document, paginated. */
export async function viewDocuments(
  deps: ContextStoreDeps,
  principal: Principal,
  input: ViewInput,
): Promise<Page<DocumentSummary>> {
  const page = await listVisible(deps, principal, input, true);
  return {
    nextCursor: page.nextCursor,
    items: page.items.map((document) => ({
      contextId: document._id,
      fileName: document.metadata.file_name,
      docType: document.metadata.doc_type,
      size: document.metadata.size,
      source: document.source,
      context_type: document.context_type,
      chunks: document.children_context_nodes.filter((id) => isChunkOf(id, document._id)).length,
      scopes: document.scopes,
      organization_id: document.organization_id,
      createdAt: document.createdAt,
      updatedAt: document.updatedAt,
    })),
  };
}
