import type { VectorFilter, VectorItem, VectorMetadata } from '@memgate/core';
import { MemgateError } from '@memgate/core';
import { documentSparseValues, scaledUnit } from './sparse.ts';

/** Pinecone's documented limits for one upsert request and one record's metadata. */
export const MAX_BATCH_VECTORS = 1_000;
export const MAX_REQUEST_BYTES = 2 * 1024 * 1024;
export const MAX_METADATA_BYTES = 40 * 1024;
// Room for the request envelope (`{"vectors":[...],"namespace":"..."}`) around the records.
const ENVELOPE_BYTES = 4 * 1024;

export interface PineconeRecord {
  id: string;
  values: number[];
  sparseValues?: { indices: number[]; values: number[] };
  metadata: Record<string, string | string[]>;
}

const ARRAY_FIELDS = new Set<keyof VectorMetadata>(['scopes', 'tags']);

/**
 * Only the VectorMetadata fields, so nothing else a caller attached can reach Pinecone. The dense values go as a
 * unit vector (on a dotproduct index its dot product is the cosine), the terms as sparse values (sparse.ts).
 */
export function toPineconeRecord(item: VectorItem): PineconeRecord {
  const m = item.metadata;
  const metadata: Record<string, string | string[]> = {
    documentId: m.documentId,
    userId: m.userId,
    source: m.source,
    fileName: m.fileName,
    docType: m.docType,
    contextType: m.contextType,
  };
  // Lists are sent only when non-empty (Pinecone documents lists of strings, not empty ones); absent reads back as [].
  if (m.scopes.length > 0) metadata.scopes = [...m.scopes];
  if (m.tags.length > 0) metadata.tags = [...m.tags];
  const size = Buffer.byteLength(JSON.stringify(metadata));
  if (size > MAX_METADATA_BYTES) {
    throw new MemgateError(
      'validation',
      'vector_metadata_too_large',
      `metadata of vector '${item.id}' is ${size} bytes; Pinecone accepts at most ${MAX_METADATA_BYTES}`,
    );
  }
  const sparseValues = item.terms ? documentSparseValues(item.terms) : undefined;
  return { id: item.id, values: scaledUnit(item.values, 1), ...(sparseValues ? { sparseValues } : {}), metadata };
}

/** Splits records into upsert requests of at most 1,000 vectors and 2 MB of JSON each. */
export function* upsertBatches(records: readonly PineconeRecord[]): Generator<PineconeRecord[]> {
  let batch: PineconeRecord[] = [];
  let bytes = 0;
  for (const record of records) {
    const size = Buffer.byteLength(JSON.stringify(record)) + 1; // + the comma between records
    if (batch.length > 0 && (batch.length >= MAX_BATCH_VECTORS || bytes + size > MAX_REQUEST_BYTES - ENVELOPE_BYTES)) {
      yield batch;
      batch = [];
      bytes = 0;
    }
    batch.push(record);
    bytes += size;
  }
  if (batch.length > 0) yield batch;
}

/** VectorFilter → Pinecone metadata filter: `$eq` for scalars, `$in` for list fields (matches when the list holds it). */
export function toPineconeFilter(filter: VectorFilter | undefined): Record<string, unknown> | undefined {
  if (!filter) return undefined;
  const clauses: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(filter)) {
    if (value === undefined) continue;
    clauses[field] = ARRAY_FIELDS.has(field as keyof VectorMetadata) ? { $in: [value] } : { $eq: value };
  }
  return Object.keys(clauses).length > 0 ? clauses : undefined;
}

/** Reads back the VectorMetadata fields from what Pinecone returns, tolerating absent ones. */
export function fromPineconeMetadata(metadata: Record<string, unknown> | undefined): VectorMetadata {
  const text = (key: string) => (typeof metadata?.[key] === 'string' ? (metadata[key] as string) : '');
  const list = (key: string) =>
    Array.isArray(metadata?.[key])
      ? (metadata[key] as unknown[]).filter((v): v is string => typeof v === 'string')
      : [];
  return {
    documentId: text('documentId'),
    userId: text('userId'),
    scopes: list('scopes'),
    source: text('source'),
    fileName: text('fileName'),
    docType: text('docType'),
    contextType: text('contextType'),
    tags: list('tags'),
  };
}

/** Pinecone's cosine score is in [-1, 1]; the port promises [0, 1]. */
export function clampScore(score: number | undefined): number {
  if (score === undefined || !(score > 0)) return 0;
  return Math.min(score, 1);
}
