import type { ContextRecord } from '../context/record.ts';
import type { CleanupOptions, CleanupReport } from './ports.ts';
import { byTenant, deleteVectorsOf, vectorItemOf } from './vectors.ts';

type Settings = Required<Omit<CleanupOptions, 'sessions' | 'log'>> & Pick<CleanupOptions, 'log'>;

/**
 * Finishes what an add or a delete left halfway: records stuck `pending` get their vectors again and become
 * `indexed` (or `failed` after `maxAttempts`); records in `deleting` lose their vectors, then their rows.
 * Every state change is a conditional transition, so a concurrent run (or a concurrent request) cannot be undone.
 */
export function createSettler(settings: Settings, report: CleanupReport) {
  const { repository, index, embedder, log } = settings;
  const seen = new Set<string>();

  function childChunksOf(document: ContextRecord, records: readonly ContextRecord[]): ContextRecord[] {
    return records.filter((record) => record.kind === 'chunk' && record.document_id === document._id);
  }

  /** Vectors of records that moved away from `pending` under us (deleted, failed) must not stay searchable. */
  async function dropVectorsOfLosers(records: readonly ContextRecord[]): Promise<void> {
    if (records.length === 0) return;
    const current = new Map((await repository.getMany(records.map((r) => r._id))).map((r) => [r._id, r]));
    const losers = records.filter((record) => current.get(record._id)?.status !== 'indexed');
    if (losers.length > 0) await deleteVectorsOf(index, losers);
  }

  async function reindexChunks(chunks: readonly ContextRecord[]): Promise<void> {
    const ready: ContextRecord[] = [];
    for (const chunk of chunks) {
      if (seen.has(chunk._id)) continue;
      seen.add(chunk._id);
      const attempts = await repository.countAttempt(chunk._id);
      if (attempts > settings.maxAttempts) {
        report.failed += (await repository.transition([chunk._id], ['pending'], 'failed')).length;
        continue;
      }
      ready.push(chunk);
    }
    if (ready.length === 0) return;
    try {
      const vectors = await embedder.embed(ready.map(settings.embeddingTextOf), 'document');
      for (const [tenant, group] of byTenant(ready)) {
        await index.upsert(
          tenant,
          group.map((chunk) => vectorItemOf(chunk, vectors[ready.indexOf(chunk)] as Float32Array)),
        );
      }
    } catch (error) {
      // The attempt is counted; the records stay pending for the next run.
      log?.('warn', 'cleanup: re-index failed, will retry', { records: ready.length, error: String(error) });
      return;
    }
    const ids = ready.map((chunk) => chunk._id);
    const moved = new Set(await repository.transition(ids, ['pending'], 'indexed'));
    report.reindexed += moved.size;
    await dropVectorsOfLosers(ready.filter((chunk) => !moved.has(chunk._id)));
  }

  async function settleDocument(document: ContextRecord): Promise<void> {
    if (seen.has(document._id)) return;
    seen.add(document._id);
    const chunks = childChunksOf(document, await repository.getMany(document.children_context_nodes));
    await reindexChunks(chunks.filter((chunk) => chunk.status === 'pending'));
    const after = await repository.getMany(chunks.map((chunk) => chunk._id));
    if (after.some((chunk) => chunk.status === 'failed')) {
      report.failed += (await repository.transition([document._id], ['pending'], 'failed')).length;
    } else if (after.length === chunks.length && after.every((chunk) => chunk.status === 'indexed')) {
      report.reindexed += (await repository.transition([document._id], ['pending'], 'indexed')).length;
    } else if ((await repository.countAttempt(document._id)) > settings.maxAttempts) {
      report.failed += (await repository.transition([document._id], ['pending'], 'failed')).length;
    }
  }

  /** Vectors first, rows last: a crash in between leaves rows in `deleting`, which the next run finishes. */
  async function finishDeletions(records: readonly ContextRecord[]): Promise<void> {
    const documents = records.filter((record) => record.kind === 'document');
    const children = documents.flatMap((document) => document.children_context_nodes);
    const chunks = children.length > 0 ? await repository.getMany(children) : [];
    const extra = documents.flatMap((document) =>
      childChunksOf(document, chunks).filter((chunk) => !records.some((record) => record._id === chunk._id)),
    );
    // A chunk still visible under a deleted document is hidden first, like the store's own delete does.
    if (extra.length > 0) {
      await repository.transition(
        extra.map((chunk) => chunk._id),
        ['pending', 'indexed', 'failed'],
        'deleting',
      );
    }
    const all = [...records, ...extra];
    report.deletedVectors += await deleteVectorsOf(index, all);
    await repository.deleteMany(all.map((record) => record._id));
    report.deletedRecords += all.length;
  }

  return async function settlePage(records: readonly ContextRecord[]): Promise<void> {
    await finishDeletions(records.filter((record) => record.status === 'deleting'));
    const pending = records.filter((record) => record.status === 'pending');
    await reindexChunks(pending.filter((record) => record.kind === 'chunk'));
    for (const document of pending.filter((record) => record.kind === 'document')) await settleDocument(document);
  };
}
