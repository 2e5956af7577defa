import { CompactVectors } from './compact-vectors.ts';
import type { NamespaceStore } from './store.ts';
import { FloatVectors, inverseNormOf } from './vectors.ts';

/** A query's cosine similarity with the stored vector at a slot, clamped to [0, 1]. */
export type CosineOf = (slot: number) => number;

/**
 * The query's exact cosine with each stored vector, from its float32 values. A query vector mostly zeros (the
 * lexical embedder's: a short query's hashed n-grams fill ~90 of 512 dimensions) is multiplied over its non-zero
 * dimensions only: the same sum to the bit (the skipped terms are exact zeros), at a fifth of the work. Compact
 * vectors (compact-vectors.ts) give their exact values by a read: use `cosineBounds` to need few.
 */
export function cosineTo(store: NamespaceStore, vector: Float32Array): CosineOf {
  return exactCosines(store, queryOf(vector, store.dimension));
}

function exactCosines(store: NamespaceStore, query: Query): CosineOf {
  const { vectors, dimension } = store;
  if (vectors instanceof FloatVectors) {
    // The arena is read per call: a write may grow it between two searches.
    return (slot) => exactCosine(query, vectors.arena, slot * dimension, vectors.inverseNorms[slot] as number);
  }
  return (slot) => exactCosine(query, vectors.read(slot), 0, vectors.inverseNorms[slot] as number);
}

/**
 * Bounds of the query's cosine with each stored vector, from what memory holds: `bound(slot)` sets `low` and `high`
 * (equal when the cosine is exact: float32 vectors, or an interval closed by the clamp to [0, 1]), `exact` gives
 * the cosine `cosineTo` would. With compact vectors the interval is the codes' cosine widened by the error bound of
 * their rounding, so it holds the exact float32 cosine: the smaller of (largest error × the query's L1 norm) and
 * (the error's L2 norm × the query's), plus a margin far above float64 rounding.
 */
export interface CosineBounds {
  bound(slot: number): void;
  low: number;
  high: number;
  readonly exact: CosineOf;
}

export function cosineBounds(store: NamespaceStore, vector: Float32Array): CosineBounds {
  const query = queryOf(vector, store.dimension);
  const exact = exactCosines(store, query);
  const { vectors, dimension } = store;
  if (!(vectors instanceof CompactVectors)) {
    const bounds: CosineBounds = {
      low: 0,
      high: 0,
      exact,
      bound(slot) {
        bounds.low = bounds.high = exact(slot);
      },
    };
    return bounds;
  }
  const { at, values, count, inverse } = query;
  let l1 = 0;
  let squared = 0;
  for (let j = 0; j < count; j++) {
    l1 += Math.abs(values[j] as number);
    squared += (values[j] as number) * (values[j] as number);
  }
  const l2 = Math.sqrt(squared);
  const bounds: CosineBounds = {
    low: 0,
    high: 0,
    exact,
    bound(slot) {
      const { codes, scales, maxErrors, errorNorms, inverseNorms } = vectors; // a write may grow them
      const base = slot * dimension;
      let dot = 0;
      for (let j = 0; j < count; j++) dot += (codes[base + (at[j] as number)] as number) * (values[j] as number);
      const scale = scales[slot] as number;
      dot *= scale;
      const error =
        Math.min((maxErrors[slot] as number) * l1, (errorNorms[slot] as number) * l2) + MARGIN * scale * 127 * l1;
      const factor = (inverseNorms[slot] as number) * inverse;
      bounds.low = clamp((dot - error) * factor);
      bounds.high = clamp((dot + error) * factor);
    },
  };
  return bounds;
}

/**
 * Relative to the largest |dot| possible (the vector's largest value × the query's L1 norm): float64 sums of at most
 * a few thousand terms err by ~1e-13 of it, in the exact cosine and in the codes' alike.
 */
const MARGIN = 1e-9;

interface Query {
  /** Non-zero dimensions (every dimension when more than half are non-zero) and their values. */
  at: Int32Array;
  values: Float32Array;
  count: number;
  /** 1/‖query‖ (0 for the zero vector). */
  inverse: number;
}

function queryOf(vector: Float32Array, dimension: number): Query {
  // Counted first, then filled by index: `Int32Array.from` of a list walked an iterator (~20 KiB a proxied request).
  let nonZero = 0;
  for (let i = 0; i < vector.length; i++) if (vector[i] !== 0) nonZero++;
  const all = nonZero * 2 > dimension;
  const at = new Int32Array(all ? vector.length : nonZero);
  for (let i = 0, j = 0; i < vector.length; i++) if (all || vector[i] !== 0) at[j++] = i;
  const values = new Float32Array(at.length);
  for (let j = 0; j < at.length; j++) values[j] = vector[at[j] as number] as number;
  return { at, values, count: at.length, inverse: inverseNormOf(vector, 0, vector.length) };
}

/** The clamped cosine of `query` with the float32 vector at `base` of `row`, whose inverse norm is given. */
function exactCosine(query: Query, row: Float32Array, base: number, inverseNormOfRow: number): number {
  const { at, values, count } = query;
  let dot = 0;
  for (let j = 0; j < count; j++) dot += (row[base + (at[j] as number)] as number) * (values[j] as number);
  return clamp(dot * inverseNormOfRow * query.inverse);
}

function clamp(score: number): number {
  if (!(score > 0)) return 0; // also NaN (a zero vector) → 0
  return Math.min(score, 1);
}
