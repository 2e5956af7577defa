import type { Principal, TenantKey } from '../../auth/index.ts';
import { invalid } from '../../errors/index.ts';
import type { ContextRecord, Page } from '../record.ts';
import type { DocumentSummary, ViewInput } from '../service.ts';
import { readScope } from './access.ts';
import type { ContextStoreDeps } from './deps.ts';
import { isChunkOf } from './ids.ts';
import { visibleRecords, withoutHiddenLinks } from './visibility.ts';

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
 * Least records read per repository call once the page is nearly full: a filtered or hidden record does not end
 * the page, and reading them one by one would cost a round trip each. The page resumes right after its last record
 * (ListingPage.cursorAfter), so reading past it only costs the read.
 */
const MIN_READ = 25;

/**
 * Pages through the caller's partitions one after the other (each newest first), keeping only visible records
 * that match the filters. The cursor names the partition and the position inside it. A page reads on until it
 * holds one record more than `limit` or the listing ends: `nextCursor` is null exactly on the last page, so a
 * client never fetches an empty one. The extra record comes with the page's own read (the repository is asked for
 * limit + 1), except when the page fills exactly at the end of a partition: the next ones are then read for one.
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
  /** Where the next page starts: right after the last record taken. */
  let resume: () => ViewCursor = () => ({ t, c });
  while (t < tenants.length) {
    const page = await deps.repository.listByTenant(tenants[t] as TenantKey, {
      documentsOnly,
      limit: Math.max(limit + 1 - items.length, Math.min(limit + 1, MIN_READ)),
      ...(c ? { cursor: c } : {}),
    });
    const shown = new Set(await visibleRecords(deps.repository, page.items.filter(matches)));
    for (let i = 0; i < page.items.length; i++) {
      const record = page.items[i] as ContextRecord;
      if (!shown.has(record)) continue;
      // A record past the page: there is a next page, which starts after the page's last record.
      if (items.length === limit) return { items, nextCursor: encodeCursor(resume()) };
      items.push(record);
      const at = { t, index: i };
      resume = () => ({ t: at.t, c: page.cursorAfter(at.index) });
    }
    if (page.nextCursor) c = page.nextCursor;
    else {
      t += 1;
      c = null;
    }
    // Whatever of this page was not taken is not shown: the next page may as well start after all of it.
    const after = { t, c };
    resume = () => after;
  }
  return { items, nextCursor: null };
}

/** Every visible record (documents and chunks), paginated; links only to visible documents (withoutHiddenLinks). */
export async function viewContext(
  deps: ContextStoreDeps,
  principal: Principal,
  input: ViewInput,
): Promise<Page<ContextRecord>> {
  const page = await listVisible(deps, principal, input, false);
  return { items: await withoutHiddenLinks(deps.repository, page.items), nextCursor: page.nextCursor };
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
