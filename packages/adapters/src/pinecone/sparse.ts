import type { SparseValues } from '@memgate/core';

/** Pinecone's ceiling on the non-zero values of one sparse vector (sparse-dense records). */
export const MAX_SPARSE_VALUES = 1_000;

// The local index's BM25+ parameters (packages/local/src/vector-index/lexical.ts), so both adapters rank alike.
const K1 = 1.2;
const B = 0.7;
const DELTA = 0.5;
/**
 * Pinecone keeps no collection statistics, so a chunk's length is normalised against a fixed reference instead of
 * its tenant's average: about the terms of a short paragraph (chunks run from a few words to 1,500 characters).
 */
const REFERENCE_LENGTH = 48;

/**
 * The document side of Pinecone's sparse-dense dot product: each term's BM25+ frequency saturation, divided by its
 * ceiling, so every value is in (0, 1). The most frequent MAX_SPARSE_VALUES terms are kept.
 */
export function documentSparseValues(terms: SparseValues): SparseValues | undefined {
  let length = 0;
  for (const value of terms.values) length += value;
  const norm = K1 * (1 - B + (B * length) / REFERENCE_LENGTH);
  let entries = terms.indices.map((index, i) => [index, terms.values[i] as number] as const).filter(([, f]) => f > 0);
  if (entries.length > MAX_SPARSE_VALUES) {
    entries = [...entries].sort((a, b) => b[1] - a[1]).slice(0, MAX_SPARSE_VALUES);
    entries.sort((a, b) => a[0] - b[0]);
  }
  if (entries.length === 0) return undefined;
  return {
    indices: entries.map(([index]) => index),
    values: entries.map(([, frequency]) => (DELTA + (frequency * (K1 + 1)) / (frequency + norm)) / (DELTA + K1 + 1)),
  };
}

/**
 * The query side: each term's share of the query (no inverse document frequency: Pinecone keeps no statistics),
 * scaled by the lexical weight, so the sparse dot product is weight × a lexical match in [0, 1].
 */
export function querySparseValues(terms: SparseValues, weight: number): SparseValues | undefined {
  let total = 0;
  for (const value of terms.values) if (value > 0) total += value;
  if (!(total > 0) || !(weight > 0)) return undefined;
  const kept = terms.values.flatMap((value, i) => (value > 0 ? [i] : []));
  return {
    indices: kept.map((i) => terms.indices[i] as number),
    values: kept.map((i) => (weight * (terms.values[i] as number)) / total),
  };
}

/** Unit length times `scale`: on a dotproduct index, a unit vector's dot product is the cosine. */
export function scaledUnit(vector: Float32Array, scale: number): number[] {
  let squared = 0;
  for (let i = 0; i < vector.length; i++) squared += (vector[i] as number) ** 2;
  const factor = squared > 0 ? scale / Math.sqrt(squared) : 0;
  return Array.from(vector, (value) => value * factor);
}
