import type { ContextRepository, SearchRecord } from '../ports.ts';
import type { ContextRecord } from '../record.ts';
import { isChunkOf } from './ids.ts';

type VisibilityFields = Pick<ContextRecord, '_id' | 'status' | 'children_context_nodes'>;

/**
 * A chunk is visible when it and its document are both `indexed` and the document still lists it. The document's
 * status gates its chunks, so an add writes each chunk row once and a delete hides a whole document with one write.
 */
export function isVisibleChunk(chunk: VisibilityFields, document: VisibilityFields | undefined): boolean {
  return (
    chunk.status === 'indexed' && document?.status === 'indexed' && document.children_context_nodes.includes(chunk._id)
  );
}

/**
 * Reads the chunks behind vector hits and their documents in one batch, only the fields search needs; returns the
 * visible chunks by id.
 */
export async function visibleChunks(
  repository: ContextRepository,
  hits: readonly SearchHitIds[],
): Promise<Map<string, SearchRecord>> {
  return visibleChunksIn(await repository.getForSearch(rowIdsOf(hits)), hits);
}

type SearchHitIds = { id: string; metadata: { documentId: string } };

/** The rows that prove `hits` visible: each hit's chunk and its document. */
function rowIdsOf(hits: readonly SearchHitIds[]): string[] {
  const ids = new Set<string>();
  for (const hit of hits) ids.add(hit.id).add(hit.metadata.documentId);
  return [...ids];
}

/** The visible chunks behind `hits`, by id, among `read` (their rows, as rowIdsOf names them). */
function visibleChunksIn(read: readonly SearchRecord[], hits: readonly SearchHitIds[]): Map<string, SearchRecord> {
  const records = new Map(read.map((record) => [record._id, record]));
  const visible = new Map<string, SearchRecord>();
  for (const hit of hits) {
    const chunk = records.get(hit.id);
    if (chunk?.kind === 'chunk' && isVisibleChunk(chunk, records.get(chunk.document_id))) visible.set(chunk._id, chunk);
  }
  return visible;
}

/** Keeps the records of a listing page that may be shown; chunks whose document is not on the page are read. */
export async function visibleRecords(
  repository: ContextRepository,
  records: readonly ContextRecord[],
): Promise<ContextRecord[]> {
  const indexed = records.filter((record) => record.status === 'indexed');
  const documents = new Map(indexed.filter((r) => r.kind === 'document').map((record) => [record._id, record]));
  const missing = [
    ...new Set(indexed.filter((r) => r.kind === 'chunk' && !documents.has(r.document_id)).map((r) => r.document_id)),
  ];
  if (missing.length > 0) for (const record of await repository.getMany(missing)) documents.set(record._id, record);
  return indexed.filter(
    (record) => record.kind === 'document' || isVisibleChunk(record, documents.get(record.document_id)),
  );
}

/** A document's links to other documents (chaining): its parents, and its children that are not its chunks. */
const documentLinksOf = (document: ContextRecord) => [
  ...document.parent_context_nodes,
  ...document.children_context_nodes.filter((id) => !isChunkOf(id, document._id)),
];

/**
 * The shown records with their links to documents that are not visible taken out: a chained neighbour deleted (or
 * hidden while it is replaced) stays named in the rows that link to it, which are not rewritten for it. Neighbours
 * on the page are known; the others are read (only their status). A chunk's parent is its document, visible with it.
 */
export async function withoutHiddenLinks(
  repository: ContextRepository,
  records: readonly ContextRecord[],
): Promise<ContextRecord[]> {
  const documents = records.filter((record) => record.kind === 'document');
  const visible = new Set(documents.filter((record) => record.status === 'indexed').map((record) => record._id));
  const unknown = [...new Set(documents.flatMap(documentLinksOf))].filter((id) => !visible.has(id));
  if (unknown.length === 0) return [...records];
  for (const record of await repository.getForSearch(unknown)) {
    if (record.kind === 'document' && record.status === 'indexed') visible.add(record._id);
  }
  const shown = (document: ContextRecord) => (id: string) => isChunkOf(id, document._id) || visible.has(id);
  return records.map((record) => {
    if (record.kind !== 'document') return record;
    const parents = record.parent_context_nodes.filter(shown(record));
    const children = record.children_context_nodes.filter(shown(record));
    if (
      parents.length === record.parent_context_nodes.length &&
      children.length === record.children_context_nodes.length
    ) {
      return record;
    }
    return { ...record, parent_context_nodes: parents, children_context_nodes: children };
  });
}
