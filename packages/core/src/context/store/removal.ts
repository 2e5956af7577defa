import { byTenant, vectorItemOf } from '../../cleanup/vectors.ts';
import type { ContextRepository, Embedder, VectorIndex } from '../ports.ts';
import type { ContextRecord } from '../record.ts';
import { forgetFingerprints } from './fingerprint.ts';
import { isChunkOf } from './ids.ts';
import { bumpAfterHiding } from './visibility-cache.ts';

export interface RemovalDeps {
  repository: ContextRepository;
  index: VectorIndex;
  /** Gives back the vectors of a record that was added again while it was being removed. */
  embedder: Embedder;
}

/** What one removal did: rows deleted, vector ids sent for deletion, records found added again meanwhile. */
export interface Removal {
  records: number;
  vectors: number;
  revived: number;
}

const chunkIdsOf = (document: ContextRecord) =>
  document.children_context_nodes.filter((id) => isChunkOf(id, document._id));

/** A document's vectors are its chunks' (a chunk's vector id is its own id); a lone chunk has its own. */
const vectorIdsOf = (record: ContextRecord) =>
  record.kind === 'document' ? chunkIdsOf(record) : [record.corresponding_vector_id].filter((id) => id !== '');

/**
 * Upserts again the vectors of the live chunks of records that left `deleting` (their current rows). They are built
 * from the rows, not as their add built them (no terms), so their documents lose their fingerprints: the next re-add
 * writes them again.
 */
export async function restoreVectors(deps: RemovalDeps, revived: readonly ContextRecord[]): Promise<void> {
  const documents = revived.filter((record) => record.kind === 'document');
  const read = await deps.repository.getMany(documents.flatMap(chunkIdsOf));
  const chunks = [...read, ...revived.filter((record) => record.kind === 'chunk')].filter(
    (chunk) => chunk.kind === 'chunk' && (chunk.status === 'pending' || chunk.status === 'indexed'),
  );
  if (chunks.length === 0) return;
  const vectors = await deps.embedder.embed(
    chunks.map((chunk) => chunk.text),
    'document',
  );
  const valuesOf = new Map(chunks.map((chunk, i) => [chunk._id, vectors[i] as Float32Array]));
  for (const [tenant, group] of byTenant(chunks)) {
    await deps.index.upsert(
      tenant,
      group.map((chunk) => vectorItemOf(chunk, valuesOf.get(chunk._id) as Float32Array)),
    );
  }
  await forgetFingerprints(deps.repository, [...new Set(chunks.map((chunk) => chunk.document_id))]);
}

/**
 * Removes what a delete hid (DESIGN.md section 3): the records of `ids` still `deleting` (documents with their
 * chunks, or lone chunks) lose their vectors, then their rows. The same document may be added again at any moment
 * (same id, a 201 that promises it is searchable), so:
 * - vector ids come from the rows as they are now, not from a list read earlier;
 * - a row goes only while the record that authorises it is still `deleting` (the document for its chunks, a lone
 *   chunk for itself): conditional deletes, so rows written again are never removed;
 * - after the vectors are gone the rows are read again, and a record that left `deleting` meanwhile gets back the
 *   vectors this removal took. (An add that writes its rows after that read upserts its vectors after the deletion.)
 * Chunk rows go before their document's row: a document left in `deleting` is how the cleanup finds its chunks.
 * Document rows go only when `documentRowsBefore` (ISO) is given and they were hidden before it (the cleanup).
 */
export async function removeDeleting(
  deps: RemovalDeps,
  ids: readonly string[],
  options: { documentRowsBefore?: string } = {},
): Promise<Removal> {
  const removal: Removal = { records: 0, vectors: 0, revived: 0 };
  const targets = (await deps.repository.getMany(ids)).filter((record) => record.status === 'deleting');
  if (targets.length === 0) return removal;
  for (const [tenant, group] of byTenant(targets)) {
    const vectorIds = [...new Set(group.flatMap(vectorIdsOf))];
    if (vectorIds.length === 0) continue;
    await deps.index.delete(tenant, vectorIds);
    removal.vectors += vectorIds.length;
  }

  const now = await deps.repository.getMany(targets.map((record) => record._id));
  const revived = now.filter((record) => record.status !== 'deleting');
  removal.revived = revived.length;
  if (revived.length > 0) {
    try {
      await restoreVectors(deps, revived);
    } catch (error) {
      // Without its vectors a visible document would silently stop being found: hide it again as `pending`, which
      // the cleanup re-indexes (a record still pending is its add's to finish).
      const visible = revived.filter((record) => record.status === 'indexed');
      try {
        await deps.repository.transition(
          visible.map((record) => record._id),
          ['indexed'],
          'pending',
        );
      } finally {
        // Even when the move failed: it may have been written before its answer was lost, so what it may have hidden
        // bumps its tenants (a bump that hid nothing only costs other processes' caches a read).
        await bumpAfterHiding(deps.repository, visible);
      }
      throw error;
    }
  }

  const still = now.filter((record) => record.status === 'deleting');
  for (const document of still.filter((record) => record.kind === 'document')) {
    const chunks = chunkIdsOf(document);
    if (chunks.length > 0 && !(await deps.repository.deleteChildrenWhile(document._id, chunks, 'deleting'))) continue;
    // The document row outlives its chunks, `deleting`, until it is stale: an add that read the document absent
    // before a concurrent add wrote it finds the row and claims it, instead of creating it over removed chunks
    // (store/write.ts). The cleanup deletes it.
    const stale = options.documentRowsBefore !== undefined && document.updatedAt < options.documentRowsBefore;
    if (!stale) {
      removal.records += chunks.length;
      continue;
    }
    const gone = await deps.repository.deleteWhere([document._id], 'deleting');
    removal.records += gone.length > 0 ? chunks.length + 1 : 0;
  }
  const lone = still.filter((record) => record.kind === 'chunk').map((record) => record._id);
  if (lone.length > 0) removal.records += (await deps.repository.deleteWhere(lone, 'deleting')).length;
  return removal;
}
