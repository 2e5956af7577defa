import { chunkTerms, NO_NEIGHBOURS } from '../context/lexical/index.ts';
import type { ContextRecord } from '../context/record.ts';
import { forgetFingerprints } from '../context/store/fingerprint.ts';
import { removeDeleting } from '../context/store/removal.ts';
import { bumpAfterHiding } from '../context/store/visibility-cache.ts';
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

  /** Embeds and upserts the vectors of `chunks`; false (logged, left for the next run) when a backend fails. */
  async function writeVectors(chunks: readonly ContextRecord[]): Promise<boolean> {
    if (chunks.length === 0) return true;
    try {
      const vectors = await embedder.embed(chunks.map(settings.embeddingTextOf), 'document');
      // Terms of each chunk's own text: the neighbours of its add are not known here (a narrower lexical match).
      const terms = settings.lexical
        ? chunkTerms(
            chunks.map((chunk) => chunk.text),
            NO_NEIGHBOURS,
          )
        : [];
      for (const [tenant, group] of byTenant(chunks)) {
        await index.upsert(
          tenant,
          group.map((chunk) => {
            const at = chunks.indexOf(chunk);
            return vectorItemOf(chunk, vectors[at] as Float32Array, terms[at]);
          }),
        );
      }
      return true;
    } catch (error) {
      log?.('warn', 'cleanup: re-index failed, will retry', { records: chunks.length, error: String(error) });
      return false;
    }
  }

  /** Counts an attempt; past the limit the record becomes `failed` (hidden for good) and false is returned. */
  async function mayRetry(record: ContextRecord): Promise<boolean> {
    if ((await repository.countAttempt(record._id)) <= settings.maxAttempts) return true;
    report.failed += (await repository.transition([record._id], ['pending'], 'failed')).length;
    return false;
  }

  /** Pending chunks on their own (their visibility is their own status). */
  async function reindexChunks(chunks: readonly ContextRecord[]): Promise<void> {
    const ready: ContextRecord[] = [];
    for (const chunk of chunks) {
      if (seen.has(chunk._id)) continue;
      seen.add(chunk._id);
      if (await mayRetry(chunk)) ready.push(chunk);
    }
    if (!(await writeVectors(ready))) return;
    const moved = new Set(
      await repository.transition(
        ready.map((chunk) => chunk._id),
        ['pending'],
        'indexed',
      ),
    );
    report.reindexed += moved.size;
    await dropVectorsOfLosers(ready.filter((chunk) => !moved.has(chunk._id)));
  }

  /**
   * A pending document: its chunks may have been written before their vectors (the store shows a chunk through its
   * document), so every live chunk gets its vector again, then the document becomes `indexed`.
   */
  async function settleDocument(document: ContextRecord): Promise<void> {
    if (seen.has(document._id)) return;
    seen.add(document._id);
    if (!(await mayRetry(document))) return;
    const chunks = childChunksOf(document, await repository.getMany(document.children_context_nodes)).filter(
      (chunk) => chunk.status === 'pending' || chunk.status === 'indexed',
    );
    for (const chunk of chunks) seen.add(chunk._id);
    if (!(await writeVectors(chunks))) return;
    const pending = chunks.filter((chunk) => chunk.status === 'pending').map((chunk) => chunk._id);
    if (pending.length > 0) await repository.transition(pending, ['pending'], 'indexed');
    const moved = await repository.transition([document._id], ['pending'], 'indexed');
    report.reindexed += moved.length;
    if (moved.length === 0) {
      const now = await repository.get(document._id);
      // Deleted or replaced meanwhile: what we just wrote must not outlive it (unless a concurrent run won).
      if (now?.status !== 'indexed') await deleteVectorsOf(index, chunks);
      // Settled by an add meanwhile: these vectors, built from the rows, may have landed after the add's.
      else if (now.fingerprint !== undefined) await forgetFingerprints(repository, [document._id]);
    }
  }

  /**
   * Vectors first, rows last (a crash in between leaves rows in `deleting`, which the next run finishes), each
   * record re-read first and removed only while still `deleting`: the list came from the unsettled index a while
   * ago, and the same document may have been added again since (removeDeleting says how). Their tenants' generations
   * are bumped first (cheap, and deletions are few): a delete whose bump failed after it hid them answered 500, and
   * until this bump another process's search cache may still show them. A failed bump leaves them for the next run.
   */
  async function finishDeletions(records: readonly ContextRecord[]): Promise<void> {
    if (records.length === 0) return;
    await bumpAfterHiding(repository, records);
    const staleBefore = new Date(settings.clock.now().getTime() - settings.staleAfterMs).toISOString();
    const removal = await removeDeleting(
      settings,
      records.map((record) => record._id),
      { documentRowsBefore: staleBefore },
    );
    report.deletedVectors += removal.vectors;
    report.deletedRecords += removal.records;
  }

  return async function settlePage(records: readonly ContextRecord[]): Promise<void> {
    await finishDeletions(records.filter((record) => record.status === 'deleting'));
    // Failed records are off the work list; one still on it (written before they left it) is taken off once.
    const failed = records.filter((record) => record.status === 'failed').map((record) => record._id);
    if (failed.length > 0) await repository.transition(failed, ['failed'], 'failed');
    const pending = records.filter((record) => record.status === 'pending');
    for (const document of pending.filter((record) => record.kind === 'document')) await settleDocument(document);
    await reindexChunks(pending.filter((record) => record.kind === 'chunk'));
  };
}
