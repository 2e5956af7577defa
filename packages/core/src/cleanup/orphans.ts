import type { ContextRepository, Embedder, VectorIndex } from '../context/ports.ts';
import type { ContextRecord } from '../context/record.ts';
import { restoreVectors } from '../context/store/removal.ts';

export interface OrphanSweep {
  repository: ContextRepository;
  index: VectorIndex;
  /** Gives back the vectors of chunk rows written again while they were being removed. */
  embedder: Embedder;
  pageSize: number;
  hasTime: () => boolean;
  /** ISO instant: a chunk row last written before it is no longer part of an add still running. */
  staleBefore: string;
}

/**
 * Deletes vectors whose record is gone (a delete that lost its rows before its vectors, a re-index that lost a
 * race), and the chunk rows and vectors of adds that stopped before writing their document row (a crash or a
 * failure between the steps of writing new documents, store/write.ts). Vector ids are chunk record ids.
 * - A vector is kept while a record with its id or vector id lives in the same tenant. Safe beside a concurrent
 *   add: an add writes its chunk rows before its vectors.
 * - A chunk row whose document row does not exist is abandoned once it is stale (older than any add still
 *   running): its row goes first, only if not written again since it was read, then its vector; rows written again
 *   after that (the same add, retried) get their vectors back.
 * Returns the number of vectors deleted, and whether the sweep finished before `hasTime` ran out.
 */
export async function sweepOrphanVectors(sweep: OrphanSweep): Promise<{ deleted: number; complete: boolean }> {
  const { repository, index, pageSize, hasTime } = sweep;
  let deleted = 0;
  for (const namespace of await index.listNamespaces()) {
    let cursor: string | undefined;
    do {
      if (!hasTime()) return { deleted, complete: false };
      const page = await index.listIds(namespace, { limit: pageSize, ...(cursor ? { cursor } : {}) });
      const records = (page.items.length > 0 ? await repository.getMany(page.items) : []).filter(
        (record) => record.tenant === namespace,
      );
      const kept = new Set(records.flatMap((record) => [record._id, record.corresponding_vector_id]));
      const orphans = page.items.filter((id) => !kept.has(id));
      if (orphans.length > 0) {
        await index.delete(namespace, orphans);
        deleted += orphans.length;
      }
      deleted += await removeAbandonedChunks(sweep, namespace, records);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }
  return { deleted, complete: true };
}

/** The stale chunk rows among `records` whose document row does not exist: their rows, then their vectors. */
async function removeAbandonedChunks(
  sweep: OrphanSweep,
  namespace: ContextRecord['tenant'],
  records: readonly ContextRecord[],
): Promise<number> {
  const { repository, index } = sweep;
  const candidates = records.filter(
    (record) => record.kind === 'chunk' && record.status === 'indexed' && record.updatedAt < sweep.staleBefore,
  );
  if (candidates.length === 0) return 0;
  const documents = new Set(
    (await repository.getMany(candidates.map((chunk) => chunk.document_id))).map((document) => document._id),
  );
  const abandoned = candidates.filter((chunk) => !documents.has(chunk.document_id));
  if (abandoned.length === 0) return 0;
  const gone = new Set(await repository.deleteUnchanged(abandoned));
  const removed = abandoned.filter((chunk) => gone.has(chunk._id));
  if (removed.length === 0) return 0;
  await index.delete(
    namespace,
    removed.map((chunk) => chunk.corresponding_vector_id),
  );
  const back = await repository.getMany(removed.map((chunk) => chunk._id));
  if (back.length > 0) await restoreVectors(sweep, back);
  return removed.length;
}
