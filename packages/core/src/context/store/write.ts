import type { TenantKey } from '../../auth/index.ts';
import type { VectorItem } from '../ports.ts';
import type { ContextRecord } from '../record.ts';
import type { VectorsToWrite } from './add-vectors.ts';
import { type ContextStoreDeps, indexingFailed } from './deps.ts';
import { forgetFingerprints } from './fingerprint.ts';
import { bumpAfterHiding } from './visibility-cache.ts';

/** What one add writes: its documents, their chunks (in the same order as `vectors`), and the chunks' vectors. */
export interface AddWrite {
  tenant: TenantKey;
  documents: ContextRecord[];
  chunks: ContextRecord[];
  /**
   * The chunks' vector items, in the order of `chunks`: being embedded while rows are written, then made whole
   * just before they are written (add-vectors.ts).
   */
  vectors: Promise<VectorsToWrite>;
}

async function upsertVectors(deps: ContextStoreDeps, tenant: TenantKey, items: readonly VectorItem[]): Promise<void> {
  try {
    await deps.index.upsert(tenant, items);
  } catch (error) {
    throw indexingFailed('the vector store failed while indexing; the documents stay hidden, retry the request', error);
  }
}

/** Chunk rows, while the vectors are computed: rows before vectors, which the cleanup's orphan sweep relies on. */
async function chunkRowsThenVectors(deps: ContextStoreDeps, write: AddWrite): Promise<void> {
  const [, vectors] = await Promise.all([deps.repository.putMany(write.chunks), write.vectors]);
  await upsertVectors(deps, write.tenant, await vectors());
}

function subsetOf(write: AddWrite, documentIds: ReadonlySet<string>): AddWrite {
  const keep = write.chunks.map((chunk) => documentIds.has(chunk.document_id));
  return {
    tenant: write.tenant,
    documents: write.documents.filter((document) => documentIds.has(document._id)),
    chunks: write.chunks.filter((_, i) => keep[i]),
    vectors: write.vectors.then((vectors) => async () => (await vectors()).filter((_, i) => keep[i])),
  };
}

/**
 * Writes an add: the documents that exist (`existing` ids) are replaced, the others written new. Returns the ids of
 * the documents this add created visible (the write-once path), whose chunks it may confirm (add.ts).
 */
export async function writeDocuments(
  deps: ContextStoreDeps,
  write: AddWrite,
  existing: ReadonlySet<string>,
): Promise<string[]> {
  const fresh = write.documents.filter((document) => !existing.has(document._id));
  if (fresh.length === write.documents.length) return writeNewDocuments(deps, write);
  if (fresh.length === 0) {
    await writeReplacingDocuments(deps, write);
    return [];
  }
  const freshIds = new Set(fresh.map((document) => document._id));
  const created = await writeNewDocuments(deps, subsetOf(write, freshIds));
  await writeReplacingDocuments(deps, subsetOf(write, existing));
  return created;
}

/**
 * Documents no one has written yet (the add read them absent): every row is written once. Chunk rows go first,
 * already `indexed` (a chunk shows only through its document, which does not exist yet), then vectors, then the
 * document rows, `indexed`, each created only if still absent. A failure before the documents leaves chunk rows
 * and vectors that nothing shows; the orphan sweep removes them once they are stale (or a retry completes them).
 * A document that someone else wrote meanwhile (the same add twice at once, then maybe a delete) is written again
 * the replacing way, which claims it first.
 */
async function writeNewDocuments(deps: ContextStoreDeps, write: AddWrite): Promise<string[]> {
  await chunkRowsThenVectors(deps, write);
  for (const document of write.documents) {
    document.status = 'indexed';
    document.indexed = true;
  }
  const taken = await deps.repository.createMany(write.documents);
  if (taken.length > 0) await writeReplacingDocuments(deps, subsetOf(write, new Set(taken)));
  const claimed = new Set(taken);
  return write.documents.filter((document) => !claimed.has(document._id)).map((document) => document._id);
}

/**
 * Documents that exist (a re-add, or a removal still in progress): the document rows go first as `pending`. That
 * hides the old version and takes the document out of `deleting`, so a removal in progress stops deleting its
 * chunk rows (they are deleted only while it is `deleting`) and gives back the vectors it took. Then chunk rows,
 * vectors, and the move to `indexed`, conditional on `pending`: a delete meanwhile wins. A failure before it leaves
 * the documents `pending`, which the cleanup re-indexes. The claim hides the old version: the tenant's generation is
 * bumped right after it, so no cache shows the old version's chunks meanwhile (visibility-cache.ts).
 */
async function writeReplacingDocuments(deps: ContextStoreDeps, write: AddWrite): Promise<void> {
  for (const document of write.documents) {
    document.status = 'pending';
    document.indexed = false;
  }
  await deps.repository.putMany(write.documents);
  await bumpAfterHiding(deps.repository, write.documents);
  await chunkRowsThenVectors(deps, write);
  await settleClaimed(deps, write.documents);
}

/**
 * The move to `indexed` of documents this add claimed. A document still holding this add's fingerprint keeps it:
 * no other add claimed it since, and whatever wrote before the claim wrote before this add's rows and vectors. The
 * others (claimed again meanwhile, or settled by another add or the cleanup) lose it, since this add's writes may
 * have landed after theirs: the next re-add writes everything (fingerprint.ts).
 */
async function settleClaimed(deps: ContextStoreDeps, documents: readonly ContextRecord[]): Promise<void> {
  const fingerprints = new Map(
    documents.flatMap((document) => (document.fingerprint ? [[document._id, document.fingerprint] as const] : [])),
  );
  const ids = documents.map((document) => document._id);
  const kept = new Set(await deps.repository.transition(ids, ['pending'], 'indexed', fingerprints));
  const contended = ids.filter((id) => !kept.has(id));
  if (contended.length === 0) return;
  const moved = new Set(await deps.repository.transition(contended, ['pending'], 'indexed'));
  await forgetFingerprints(
    deps.repository,
    contended.filter((id) => !moved.has(id)),
  );
}
