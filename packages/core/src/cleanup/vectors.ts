import type { ChunkTerms } from '../context/lexical/index.ts';
import type { VectorChain, VectorIndex, VectorItem } from '../context/ports.ts';
import type { ContextRecord } from '../context/record.ts';

/**
 * The vector a chunk record stands for, with the filterable attributes search relies on (and its terms and chain, if
 * any), and its text for an index that can show confirmed matches (VectorIndex.confirm).
 */
export function vectorItemOf(
  record: ContextRecord,
  values: Float32Array,
  lexical?: ChunkTerms,
  chain?: VectorChain,
): VectorItem {
  const item: VectorItem = {
    id: record.corresponding_vector_id,
    values,
    metadata: {
      documentId: record.document_id,
      userId: record.user_id,
      scopes: record.scopes,
      source: record.source,
      fileName: record.metadata.file_name,
      docType: record.metadata.doc_type,
      contextType: record.context_type,
      tags: record.tags,
    },
    text: record.text,
  };
  if (lexical && lexical.terms.indices.length > 0) item.terms = lexical.terms;
  if (lexical?.contextTerms) item.contextTerms = lexical.contextTerms;
  if (lexical && chain) item.chain = chain;
  return item;
}

/** Groups records by tenant namespace, keeping order inside each group. */
export function byTenant(records: readonly ContextRecord[]): Map<ContextRecord['tenant'], ContextRecord[]> {
  const groups = new Map<ContextRecord['tenant'], ContextRecord[]>();
  for (const record of records) {
    const group = groups.get(record.tenant);
    if (group) group.push(record);
    else groups.set(record.tenant, [record]);
  }
  return groups;
}

/** Deletes the vectors of `records` (those that have one), one call per namespace; returns how many ids it sent. */
export async function deleteVectorsOf(index: VectorIndex, records: readonly ContextRecord[]): Promise<number> {
  let count = 0;
  for (const [tenant, group] of byTenant(records)) {
    const ids = group.map((record) => record.corresponding_vector_id).filter((id) => id.length > 0);
    if (ids.length === 0) continue;
    await index.delete(tenant, ids);
    count += ids.length;
  }
  return count;
}
