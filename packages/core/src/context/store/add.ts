import { type Principal, type TenantKey, tenantOf } from '../../auth/index.ts';
import { vectorItemOf } from '../../cleanup/vectors.ts';
import { invalid } from '../../errors/index.ts';
import {
  chunkTerms,
  DEFAULT_NEIGHBOUR_WINDOW,
  neighbourOffsets,
  speakerTermIdsOf,
  textWords,
} from '../lexical/index.ts';
import type { GenerationTag, VectorChain, VectorItem } from '../ports.ts';
import type { ContextRecord } from '../record.ts';
import type { AddInput, AddResult } from '../service.ts';
import { resolveOwner } from './access.ts';
import { type ContextStoreDeps, DEFAULT_LEXICAL_WEIGHT, indexingFailed } from './deps.ts';
import { completeTags, recordConfirmations } from './generation-tags.ts';
import { isChunkOf } from './ids.ts';
import { type BuiltDocument, buildDocument, chainDocuments } from './records.ts';
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
 * Each chunk's terms with its neighbours' in `chunks`' order, or within its own document only (`separate`), from
 * the chunks' words (`textWords`, in the same order).
 */
function termsOf(
  deps: ContextStoreDeps,
  chunks: readonly ContextRecord[],
  words: readonly (readonly string[])[],
  separate: boolean,
) {
  const window = deps.retrieval?.neighbours ?? DEFAULT_NEIGHBOUR_WINDOW;
  const textsOf = (part: readonly ContextRecord[]) => part.map((chunk) => chunk.text);
  if (!separate) return chunkTerms(textsOf(chunks), window, words);
  const terms: ReturnType<typeof chunkTerms> = [];
  // A document's chunks are consecutive (built document by document).
  for (let start = 0, end = 1; start < chunks.length; start = end, end = start + 1) {
    while (end < chunks.length && chunks[end]?.document_id === chunks[start]?.document_id) end += 1;
    terms.push(...chunkTerms(textsOf(chunks.slice(start, end)), window, words.slice(start, end)));
  }
  return terms;
}

/** Where each chunk's contextTerms come from (VectorChain), as `termsOf` sums them: the same neighbours, in order. */
function chainsOf(deps: ContextStoreDeps, chunks: readonly ContextRecord[], separate: boolean): VectorChain[] {
  const window = deps.retrieval?.neighbours ?? DEFAULT_NEIGHBOUR_WINDOW;
  const chains: VectorChain[] = [];
  for (let start = 0, end = 1; start < chunks.length; start = end, end = start + 1) {
    if (separate) while (end < chunks.length && chunks[end]?.document_id === chunks[start]?.document_id) end += 1;
    else end = chunks.length;
    neighbourOffsets(end - start, window).forEach(({ offsets, weights }, i) => {
      const chunk = chunks[start + i] as ContextRecord;
      chains.push({
        neighbours: offsets.map((offset) => (chunks[start + i + offset] as ContextRecord).corresponding_vector_id),
        weights,
        unlent: speakerTermIdsOf(chunk.text),
      });
    });
  }
  return chains;
}

/**
 * The chunks' vectors: embeddings (the embedder runs while rows are written) and each chunk's terms, with its
 * neighbours' in this add's order (documents, then their chunks; or its own document's only), for the lexical half.
 * Each chunk's words are read once, for its terms and, by an embedder that reads the same words, its vector.
 */
function vectorItemsOf(
  deps: ContextStoreDeps,
  chunks: readonly ContextRecord[],
  separate: boolean,
): Promise<VectorItem[]> {
  const texts = chunks.map((chunk) => chunk.text);
  const lexical = (deps.retrieval?.lexicalWeight ?? DEFAULT_LEXICAL_WEIGHT) > 0;
  const { embedder } = deps;
  const words = lexical || embedder.embedWords ? texts.map(textWords) : [];
  const embedding = (
    embedder.embedWords ? embedder.embedWords(texts, words, 'document') : embedder.embed(texts, 'document')
  ).catch((error: unknown) => {
    throw indexingFailed('embedding the documents failed; nothing was added, retry the request', error);
  });
  const terms = lexical ? termsOf(deps, chunks, words, separate) : [];
  const chains = lexical ? chainsOf(deps, chunks, separate) : [];
  return embedding.then((vectors) =>
    chunks.map((chunk, i) => vectorItemOf(chunk, vectors[i] as Float32Array, terms[i], chains[i])),
  );
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

/**
 * Adds documents (DESIGN.md section 3). New documents: chunk rows, vectors, then the document rows, each written
 * once; documents that exist are replaced behind a `pending` document row (write.ts).
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
  const built = inputs.map((document) => buildDocument(document, ctx));
  if (input.chained) chainDocuments(built);
  // The same document twice in one request is one document (and one set of keys in a batch write).
  const unique = new Map(built.map((item) => [item.document._id, item]));

  // With an index that confirms, the tenant's generation tag is read in the same batch (made if absent): the chunks
  // this add makes visible are confirmed at it once written (confirmAdded).
  const confirms = deps.index.confirm !== undefined;
  const reading = confirms
    ? deps.repository.getManyWithGenerations([...unique.keys()], [tenant])
    : deps.repository.getMany([...unique.keys()]).then((records) => ({ records, generations: undefined }));
  // The upsert comes two round trips later: what it needs is readied while this read is on the wire.
  deps.index.prepare?.();
  const { records: existing, generations } = await reading;
  const tag = generations && (await completeTags(deps.repository, [tenant], generations)).get(tenant);
  for (const old of existing) {
    const item = unique.get(old._id);
    if (!item) continue;
    for (const record of [item.document, ...item.chunks]) record.createdAt = old.createdAt;
  }
  const stale = staleChunks(existing, unique);
  if (stale.length > 0) {
    await deps.repository.transition(stale, ['pending', 'indexed', 'failed'], 'deleting');
    await bumpAfterHiding(deps.repository, [{ tenant }]);
  }

  const documents = [...unique.values()].map((item) => item.document);
  const chunks = [...unique.values()].flatMap((item) => item.chunks);
  const write = { tenant, documents, chunks, vectors: vectorItemsOf(deps, chunks, input.separateDocuments === true) };
  // A rejection is the write's to report; this keeps it from going unhandled when a step before fails first.
  write.vectors.catch(() => {});
  const created = await writeDocuments(deps, write, new Set(existing.map((record) => record._id)));
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
  return {
    contextIds: built.map((item) => item.document._id),
    documents: built.map((item) => ({
      contextId: item.document._id,
      fileName: item.document.metadata.file_name,
      chunks: item.chunks.length,
    })),
  };
}
