import type { ContextRepository, VectorIndex } from '../context/ports.ts';

/**
 * Deletes vectors whose record is gone (a delete that lost its rows before its vectors, a re-index that lost a
 * race). Vector ids are chunk record ids; a vector is kept while a record with its id or vector id lives in the
 * same tenant. Safe beside a concurrent add: an add writes its rows before its vectors.
 * Returns the number deleted, or `undefined` when `hasTime` ran out first.
 */
export async function sweepOrphanVectors({
  repository,
  index,
  pageSize,
  hasTime,
}: {
  repository: ContextRepository;
  index: VectorIndex;
  pageSize: number;
  hasTime: () => boolean;
}): Promise<{ deleted: number; complete: boolean }> {
  let deleted = 0;
  for (const namespace of await index.listNamespaces()) {
    let cursor: string | undefined;
    do {
      if (!hasTime()) return { deleted, complete: false };
      const page = await index.listIds(namespace, { limit: pageSize, ...(cursor ? { cursor } : {}) });
      const records = page.items.length > 0 ? await repository.getMany(page.items) : [];
      const kept = new Set(
        records
          .filter((record) => record.tenant === namespace)
          .flatMap((record) => [record._id, record.corresponding_vector_id]),
      );
      const orphans = page.items.filter((id) => !kept.has(id));
      if (orphans.length > 0) {
        await index.delete(namespace, orphans);
        deleted += orphans.length;
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }
  return { deleted, complete: true };
}
