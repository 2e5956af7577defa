import { type Principal, type TenantKey, tenantOf } from '../../auth/index.ts';
import { invalid } from '../../errors/index.ts';
import { createTimeSlice, giveWay, mapInSlices } from '../../history/time-slice.ts';
import type { GenerationTag } from '../ports.ts';
import type { ContextRecord } from '../record.ts';
import type { AddInput, AddResult } from '../service.ts';
import { resolveOwner } from './access.ts';
import { embeddedItems, type VectorShapes, vectorShapesOf } from './add-vectors.ts';
import type { ContextStoreDeps } from './deps.ts';
import { fingerprintOf } from './fingerprint.ts';
import { completeTags, recordConfirmations } from './generation-tags.ts';
import { isChunkOf } from './ids.ts';
import { type AddContext, type BuiltDocument, buildDocument, chainDocuments } from './records.ts';
import { removeDeleting } from './removal.ts';
import { bumpAfterHiding } from './visibility-cache.ts';
import { writeDocuments } from './write.ts';

export const MAX_DOCUMENTS = 100;
export const MAX_DOCUMENT_CHARS = 1_000_000;

/** `modalities` as an array or a comma-separated string (DESIGN.md section 3); default `["text"]`. */
export function parseModalities(value: unknown): string[] {
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
  const names = list.filter((item): item is string => typeof item === 'string').map((item) => item.trim());
  const kept = [...new Set(names.filter((name) => name !== ''))];
  return kept.length > 0 ? kept : ['text'];
}

function parseTags(input: AddInput): string[] {
  const value = input.tags ?? input.metadata?.tags;
  const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [];
  return [...new Set(list.filter((tag): tag is string => typeof tag === 'string' && tag.trim() !== ''))].map((tag) =>
    tag.trim(),
  );
}

function validateDocuments(input: AddInput): void {
  if (!Array.isArray(input.documents) || input.documents.length === 0) {
    throw invalid('documents: at least one document with non-empty content is required', 'documents');
  }
  if (input.documents.length > MAX_DOCUMENTS) {
    throw invalid(`documents: at most ${MAX_DOCUMENTS} documents per request`, 'documents');
  }
  input.documents.forEach((document, i) => {
    if (typeof document?.content !== 'string') throw invalid('must be a string', `documents[${i}].content`);
    if (document.content.length > MAX_DOCUMENT_CHARS) {
      throw invalid(`at most ${MAX_DOCUMENT_CHARS} characters`, `documents[${i}].content`);
    }
  });
  if (input.documents.every((document) => document.content.trim() === '')) {
    throw invalid('documents: at least one document with non-empty content is required', 'documents');
  }
}

/**
 * Old chunks of re-added documents that the new version no longer has (the chunking changed since): they are
 * hidden before the new rows are written and removed after.
 */
function staleChunks(existing: readonly ContextRecord[], built: ReadonlyMap<string, BuiltDocument>): string[] {
  return existing.flatMap((old) => {
    const fresh = new Set(built.get(old._id)?.document.children_context_nodes ?? []);
    return old.children_context_nodes.filter((id) => isChunkOf(id, old._id) && !fresh.has(id));
  });
}

/**
 * Gives each document the fingerprint of what this add writes for it (fingerprint.ts). A document's chunks are
 * consecutive in `shapes`, in the order of `built`.
 */
async function fingerprintDocuments(
  deps: ContextStoreDeps,
  built: Iterable<BuiltDocument>,
  shapes: VectorShapes,
): Promise<void> {
  const slice = createTimeSlice();
  let offset = 0;
  for (const { document, chunks } of built) {
    const items = shapes.items.slice(offset, offset + chunks.length);
    const contextSizes = shapes.contextSizes.slice(offset, offset + chunks.length);
    document.fingerprint = fingerprintOf(deps.embedder, document, chunks, items, contextSizes);
    offset += chunks.length;
    if (slice.due()) await slice.giveWay();
  }
}

/** The add's documents built (chunked), giving the loop back between documents: 100 of them can be 6 MB. */
function buildDocuments(inputs: AddInput['documents'], ctx: AddContext): Promise<BuiltDocument[]> {
  return mapInSlices(inputs, (document) => buildDocument(document, ctx));
}

/**
 * Confirms in the index the chunks of the documents this add created visible, at the tag read at its start: any
 * hide since bumped the tag, so a stale tag just fails later (search-rows.ts). Replaced documents are not confirmed
 * (their claim bumped after that read). A hint: a failure costs a later search a row read, never the add.
 */
async function confirmAdded(
  deps: ContextStoreDeps,
  tenant: TenantKey,
  chunks: readonly ContextRecord[],
  created: ReadonlySet<string>,
  tag: GenerationTag,
): Promise<void> {
  const confirmations = chunks
    .filter((chunk) => created.has(chunk.document_id))
    .map((chunk) => ({ id: chunk._id, text: chunk.text, tag }));
  await recordConfirmations(
    deps,
    new Map([[tenant, confirmations]]),
    'context add: confirming the added chunks in the index failed',
  );
}

interface ChangedDocuments {
  /** The documents to write: new, or stored differently (or not whole). */
  changed: readonly BuiltDocument[];
  /** The add's documents as read before writing. */
  existing: readonly ContextRecord[];
  generations: Map<TenantKey, GenerationTag> | undefined;
  /** Every chunk of the add, in the order of `shapes`. */
  allChunks: readonly ContextRecord[];
  shapes: VectorShapes;
}

/** Writes the documents an add changes (write.ts), then removes the chunks their new versions no longer have. */
async function writeChanged(
  deps: ContextStoreDeps,
  tenant: TenantKey,
  { changed, existing, generations, allChunks, shapes }: ChangedDocuments,
): Promise<void> {
  const tag = generations && (await completeTags(deps.repository, [tenant], generations)).get(tenant);
  const byId = new Map(changed.map((item) => [item.document._id, item]));
  const replaced = existing.filter((old) => byId.has(old._id));
  for (const old of replaced) {
    const item = byId.get(old._id) as BuiltDocument;
    for (const record of [item.document, ...item.chunks]) record.createdAt = old.createdAt;
  }
  const stale = staleChunks(replaced, byId);
  if (stale.length > 0) {
    await deps.repository.transition(stale, ['pending', 'indexed', 'failed'], 'deleting');
    await bumpAfterHiding(deps.repository, [{ tenant }]);
  }

  const documents = changed.map((item) => item.document);
  const positions = allChunks.flatMap((chunk, i) => (byId.has(chunk.document_id) ? [i] : []));
  const chunks = positions.map((i) => allChunks[i] as ContextRecord);
  // The embedding (~10 ms for 100 chunks on the bench's machine) runs after a turn of the event loop: the first
  // rows' requests (writeDocuments) reach the wire in that turn, and the chunks are embedded while DynamoDB writes
  // those rows. Embedded first, they delayed every request of the write (issue 17).
  const vectors = giveWay().then(() => embeddedItems(deps, allChunks, shapes, positions));
  const write = { tenant, documents, chunks, vectors };
  // A rejection is the write's to report; this keeps it from going unhandled when a step before fails first.
  write.vectors.catch(() => {});
  const created = await writeDocuments(deps, write, new Set(replaced.map((record) => record._id)));
  if (tag !== undefined) await confirmAdded(deps, tenant, chunks, new Set(created), tag);
  if (stale.length > 0) {
    try {
      await removeDeleting(deps, stale);
    } catch (error) {
      // Already hidden; the cleanup finishes removing them. The add itself succeeded.
      deps.log?.('warn', 'context add: removing replaced chunks failed, left to the cleanup', {
        chunks: stale.length,
        error: String(error),
      });
    }
  }
}

/**
 * Adds documents (DESIGN.md section 3). New documents: chunk rows, vectors, then the document rows, each written
 * once; documents that exist are replaced behind a `pending` document row (write.ts); documents stored whole by an
 * add of exactly the same (fingerprint.ts) are not written again.
 */
export async function addDocuments(deps: ContextStoreDeps, principal: Principal, input: AddInput): Promise<AddResult> {
  validateDocuments(input);
  const { ownerId, organizationId } = resolveOwner(principal, input.user_id, input.organization_id);
  const tenant = tenantOf(ownerId, organizationId);
  const metadata = input.metadata ?? {};
  const ctx = {
    ownerId,
    organizationId,
    tenant,
    source: input.source,
    contextType: input.context_type ?? 'resource',
    scope: input.scope ?? 'internal',
    metadata,
    modalities: parseModalities(metadata.modalities),
    tags: parseTags(input),
    now: deps.clock.now().toISOString(),
  } as const;
  const inputs = input.documents.filter((document) => document.content.trim() !== '');
  const built = await buildDocuments(inputs, ctx);
  if (input.chained) chainDocuments(built);
  // The same document twice in one request is one document (and one set of keys in a batch write).
  const unique = new Map(built.map((item) => [item.document._id, item]));

  const allChunks = [...unique.values()].flatMap((item) => item.chunks);

  // With an index that confirms, the tenant's generation tag is read in the same batch (made if absent): the chunks
  // this add makes visible are confirmed at it once written (confirmAdded).
  const confirms = deps.index.confirm !== undefined;
  const reading = confirms
    ? deps.repository.getManyWithGenerations([...unique.keys()], [tenant])
    : deps.repository.getMany([...unique.keys()]).then((records) => ({ records, generations: undefined }));
  // The upsert comes two round trips later: what it needs is readied while this read is on the wire, and the
  // chunks' terms and the documents' fingerprints are computed meanwhile, once the read's request has left (the SDK
  // sends it a few promise jobs later: a turn of the event loop). Awaited with the read, so a read that fails within
  // that turn is not an unhandled rejection.
  deps.index.prepare?.();
  const [{ records: existing, generations }, shapes] = await Promise.all([
    reading,
    giveWay().then(async () => {
      const computed = await vectorShapesOf(deps, allChunks, input.separateDocuments === true);
      await fingerprintDocuments(deps, unique.values(), computed);
      return computed;
    }),
  ]);
  // A document stored whole (`indexed`) by an add of exactly this one is left as it is: no row, no vector written.
  const unchanged = new Set(
    existing
      .filter((old) => old.status === 'indexed' && old.fingerprint === unique.get(old._id)?.document.fingerprint)
      .map((old) => old._id),
  );
  const changed = [...unique.values()].filter((item) => !unchanged.has(item.document._id));
  if (changed.length > 0) await writeChanged(deps, tenant, { changed, existing, generations, allChunks, shapes });
  return {
    contextIds: built.map((item) => item.document._id),
    documents: built.map((item) => ({
      contextId: item.document._id,
      fileName: item.document.metadata.file_name,
      chunks: item.chunks.length,
    })),
  };
}
