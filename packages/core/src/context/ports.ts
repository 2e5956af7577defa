import type { TenantKey } from '../auth/index.ts';
import type { ContextRecord, ListingPage, Page, RecordMetadata, RecordStatus } from './record.ts';

/** Turns text into vectors. Implementations: lexical (local), OpenAI-compatible, Pinecone inference. */
export interface Embedder {
  /** Stable identifier of the model and its dimension, e.g. "lexical-v1:512". */
  readonly id: string;
  readonly dimension: number;
  /** Embeds in one batch where the backend allows; vectors are L2-normalised. */
  embed(texts: readonly string[], purpose: 'document' | 'query'): Promise<Float32Array[]>;
  /**
   * Optional: `embed` for texts whose words (`textWords`) the caller has already read, the same vectors without
   * tokenising each text again. An embedder that reads texts as `textWords` does offers it (the lexical one): an add
   * reads its chunks' words once for their terms and their vectors.
   */
  embedWords?(
    texts: readonly string[],
    words: readonly (readonly string[])[],
    purpose: 'document' | 'query',
  ): Promise<Float32Array[]>;
}

/** Filterable attributes stored beside each vector; equality only. */
export interface VectorMetadata {
  documentId: string;
  userId: string;
  scopes: string[];
  source: string;
  fileName: string;
  docType: string;
  contextType: string;
  tags: string[];
}

/** A sparse vector: ascending, unique term ids (`termId`, 32-bit) and one weight each. */
export interface SparseValues {
  indices: number[];
  values: number[];
}

export interface VectorItem {
  id: string;
  values: Float32Array;
  metadata: VectorMetadata;
  /** Term frequencies of the text the vector stands for (`chunkTerms`): its lexical half. */
  terms?: SparseValues;
  /**
   * Its neighbours' term frequencies, already weighted: they add to a match of its own terms and never match on
   * their own. An adapter may ignore them (Pinecone's dot product cannot require an own match).
   */
  contextTerms?: SparseValues;
  /**
   * The chunk's text, as search shows it: an index that can confirm matches (VectorIndex.confirm) keeps it, the
   * others ignore it. Upserting an id again clears what was confirmed of it.
   */
  text?: string;
  /**
   * Where `contextTerms` came from, so an index that holds the neighbours may lend their terms at query time instead
   * of storing them (local; others ignore it).
   */
  chain?: VectorChain;
}

/**
 * A chunk's neighbours in its add (chunkTerms' window): their ids in the order their terms were summed into its
 * contextTerms, each with the weight of one occurrence, and the terms of its own it lends to none (its speaker
 * markers, one id per occurrence).
 */
export interface VectorChain {
  neighbours: string[];
  weights: number[];
  unlent: number[];
}

/** Every given key must match; array attributes match when they contain the value. */
export type VectorFilter = Partial<Record<keyof VectorMetadata, string>>;

/**
 * A hybrid query: the dense vector, and optionally the query's term frequencies with the lexical match's share of
 * the score (`lexicalWeight`, from 0 to 1).
 */
export interface VectorQuery {
  vector: Float32Array;
  topK: number;
  filter?: VectorFilter;
  terms?: SparseValues;
  lexicalWeight?: number;
  /**
   * Speaker attribution: the query's words as speaker markers (querySpeakerIds). When some chunk is spoken by one
   * of them (it holds the marker, chunkTerms), a match spoken by someone else (it holds SPOKEN_TERM and none of
   * them) keeps `factor` of its score (from 0 to 1); chunks no speaker label opens keep theirs. An adapter may
   * ignore it (Pinecone's dot product cannot scale a match); README "Search score".
   */
  speakers?: { terms: number[]; factor: number };
}

export interface VectorMatch {
  id: string;
  /**
   * Relevance in [0, 1]: the cosine similarity clamped to [0, 1]; with query terms and a lexical weight w,
   * (1 − w) · cosine + w · lexical, where lexical in [0, 1] is a BM25-family match of the query's terms divided by
   * the most the query could score (each adapter says which; README "Search score").
   */
  score: number;
  metadata: VectorMetadata;
  /**
   * Only from an index that confirms (VectorIndex.confirm): the text it holds and the tag it was last confirmed at.
   * Search shows the match without reading its rows when `tag` is its tenant's current generation tag.
   */
  confirmed?: { text: string; tag: GenerationTag };
}

/**
 * A tenant's visibility generation as one opaque value: a random epoch written when the tenant's generation row is
 * created, and its counter (ContextRepository.readGenerations). Two tags are the same generation only when equal.
 */
export type GenerationTag = string;

/** A search's verdict on one match: its chunk was read visible, showing `text`, after the tenant's `tag` was read. */
export interface Confirmation {
  id: string;
  text: string;
  tag: GenerationTag;
}

/** Vector storage partitioned by tenant namespace, dense and sparse (terms) side by side under one id. */
export interface VectorIndex {
  upsert(namespace: TenantKey, items: readonly VectorItem[]): Promise<void>;
  /** The best `topK` matches, best first, by the score of VectorMatch. */
  query(namespace: TenantKey, query: VectorQuery): Promise<VectorMatch[]>;
  /** Deleting ids that do not exist is not an error. */
  delete(namespace: TenantKey, ids: readonly string[]): Promise<void>;
  /** Pages through the ids of one namespace (for the cleanup's orphan sweep). */
  listIds(namespace: TenantKey, options: { cursor?: string; limit: number }): Promise<Page<string>>;
  listNamespaces(): Promise<TenantKey[]>;
  /**
   * Optional capability (the embedded index has it, Pinecone not): records that each match was proved visible at a
   * tag, so later queries return it as `confirmed`. Applies only to ids held with exactly that `text`; an upsert of
   * the id clears it, a delete removes it. A hint: losing one costs a row read, never a wrong result, since search
   * only trusts a tag equal to the tenant's current one.
   */
  confirm?(namespace: TenantKey, confirmations: readonly Confirmation[]): Promise<void>;
  /**
   * Optional: starts readying what the first call needs (Pinecone's client, loaded on first use), without waiting and
   * without failing (a failure is the next call's). An add calls it while its first read is on the wire, so a cold
   * start readies the client then instead of after the chunk rows are written.
   */
  prepare?(): void;
}

/** What search reads of a hit's chunk and of its document: enough to decide visibility and to build the result. */
export type SearchRecord = Pick<
  ContextRecord,
  '_id' | 'kind' | 'status' | 'tenant' | 'document_id' | 'children_context_nodes' | 'text' | 'source'
> & { metadata: Pick<RecordMetadata, 'file_name'> };

/**
 * What a delete by document reads of each document of a tenant: its names (source, file name), its owner, and what
 * hiding it needs (id, status, tenant). Not the list of chunk ids and the rest of the row.
 */
export type NamedDocument = Pick<ContextRecord, '_id' | 'user_id' | 'status' | 'tenant' | 'source'> & {
  metadata: Pick<RecordMetadata, 'file_name'>;
};

/** A document record narrowed to what a delete by document reads (a store without a slim index narrows its rows). */
export function namedDocumentOf({ _id, user_id, status, tenant, source, metadata }: ContextRecord): NamedDocument {
  return { _id, user_id, status, tenant, source, metadata: { file_name: metadata.file_name } };
}

/** Where context records live (DynamoDB in every runtime). */
export interface ContextRepository {
  /** Writes (creates or replaces) records in batches; unprocessed items are retried. */
  putMany(records: readonly ContextRecord[]): Promise<void>;
  /**
   * Writes records that do not exist yet, each conditional on its absence (an add's documents, written once and last);
   * returns the ids that already existed, left as they were.
   */
  createMany(records: readonly ContextRecord[]): Promise<string[]>;
  /** Strongly consistent batch read; missing ids are simply absent from the result. */
  getMany(ids: readonly string[]): Promise<ContextRecord[]>;
  get(id: string): Promise<ContextRecord | undefined>;
  /**
   * `getMany` narrowed to the fields of SearchRecord, as strongly consistent: search reads only what it shows and
   * what decides visibility (the rest of a record is most of its bytes).
   */
  getForSearch(ids: readonly string[]): Promise<SearchRecord[]>;
  /**
   * Moves records to `status` (and `indexed` to match) only where their current status is one of `from`;
   * returns the ids that moved. Used for pending→indexed and indexed→deleting without racing a concurrent writer.
   * A move removes the row's `fingerprint`, except where `fingerprints` gives the id's: then the row moves only if
   * it holds that fingerprint, and keeps it (an add settling the documents it claimed, store/fingerprint.ts).
   */
  transition(
    ids: readonly string[],
    from: readonly RecordStatus[],
    to: RecordStatus,
    fingerprints?: ReadonlyMap<string, string>,
  ): Promise<string[]>;
  /**
   * Unconditional: only for rows no concurrent request can write again. Removing what a delete hid goes through
   * deleteWhere/deleteChildrenWhile, so a document added again meanwhile keeps its new rows.
   */
  deleteMany(ids: readonly string[]): Promise<void>;
  /** Deletes the rows of `ids` that are still in `status` (conditional deletes); returns the ids deleted. */
  deleteWhere(ids: readonly string[], status: RecordStatus): Promise<string[]>;
  /**
   * Deletes rows only while their `updatedAt` is still the one given (not written again since they were read);
   * returns the ids deleted.
   */
  deleteUnchanged(rows: readonly Pick<ContextRecord, '_id' | 'updatedAt'>[]): Promise<string[]>;
  /**
   * Deletes the rows of `ids` (a document's chunks) only while the record `guardId` (the document) is in `status`;
   * returns false, keeping the rows not yet deleted, as soon as it is not.
   */
  deleteChildrenWhile(guardId: string, ids: readonly string[], status: RecordStatus): Promise<boolean>;
  /**
   * Takes `childId` out of the `children_context_nodes` of the document `documentId` while the document is `indexed`
   * and lists it, changing nothing else of the list (a concurrent change to it is never overwritten), and removes the
   * document's fingerprint (its rows are no longer what its add wrote: a re-add writes them all). Returns whether it
   * was taken out; false when the document is absent, not `indexed` (being replaced or deleted) or does not list it.
   */
  unlistChild(documentId: string, childId: string): Promise<boolean>;
  /**
   * Records of one tenant partition, newest first. `documentsOnly` uses the sparse documents index. The page can
   * resume after any of its records (view keeps only the visible ones, and reads one past a page to know it is not
   * the last).
   */
  listByTenant(
    tenant: TenantKey,
    options: { documentsOnly?: boolean; cursor?: string; limit: number },
  ): Promise<ListingPage<ContextRecord>>;
  /**
   * The documents of one tenant partition narrowed to NamedDocument, newest first, as eventually consistent as
   * `listByTenant` with `documentsOnly` (the same entries, a slim index).
   */
  listDocumentNames(tenant: TenantKey, options: { cursor?: string; limit: number }): Promise<Page<NamedDocument>>;
  /**
   * The documents of one tenant whose source or file name is `name` (any status), read through an index by name, so
   * at a cost that does not grow with the tenant. Undefined while the store cannot answer by name (rows written before
   * that index exist and have not all been given its keys yet): the caller then pages through listDocumentNames.
   */
  findDocumentsNamed(tenant: TenantKey, name: string): Promise<NamedDocument[] | undefined>;
  /** Records owned by one user across all partitions, newest first. */
  listByOwner(
    userId: string,
    options: { documentsOnly?: boolean; cursor?: string; limit: number },
  ): Promise<Page<ContextRecord>>;
  /**
   * The cleanup's work list: records `pending` or `deleting` last updated before `before` (ISO), oldest first.
   * `indexed` and `failed` records are not on it (the cleanup gave up on a failed one; see ARCHITECTURE.md).
   */
  listUnsettled(options: { before: string; cursor?: string; limit: number }): Promise<Page<ContextRecord>>;
  /** Increments the cleanup's re-index attempt counter; returns the new count. */
  countAttempt(id: string): Promise<number>;
  /**
   * The visibility generation tag of each tenant (GenerationTag), strongly consistent. A tenant whose generation row
   * is absent (never created, or the table was wiped) or has no epoch yet is absent from the map: it vouches for
   * nothing. Search reads it before reading rows, to know which confirmed or cached chunks still hold.
   */
  readGenerations(tenants: readonly TenantKey[]): Promise<Map<TenantKey, GenerationTag>>;
  /**
   * The tags of `tenants`, creating the generation rows that do not exist (a random epoch, counter 0; atomic: two
   * concurrent creations agree). Costs a write per tenant: called only for tenants readGenerations found no tag for.
   */
  ensureGenerations(tenants: readonly TenantKey[]): Promise<Map<TenantKey, GenerationTag>>;
  /**
   * Adds one to the generation of each tenant (atomic: two concurrent bumps count twice), creating its row with a
   * new epoch if absent. Every path that hides a record calls it after the hiding write and before it answers.
   */
  bumpGenerations(tenants: readonly TenantKey[]): Promise<void>;
  /**
   * getMany and readGenerations in one strongly consistent batch: one round trip (an add reads its documents and its
   * tenant's tag together). The reads inside it have no order.
   */
  getManyWithGenerations(
    ids: readonly string[],
    tenants: readonly TenantKey[],
  ): Promise<{ records: ContextRecord[]; generations: Map<TenantKey, GenerationTag> }>;
}
