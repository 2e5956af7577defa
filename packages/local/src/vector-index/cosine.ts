import type { NamespaceStore } from './store.ts';

/** A query's cosine similarity with the stored vector at a slot, clamped to [0, 1]. */
export type CosineOf = (slot: number) => number;

/**
 * The query's cosine with each stored vector, from the float32 copy. A query vector mostly zeros (the lexical
 * embedder's: a short query's hashed n-grams fill ~90 of 512 dimensions) is multiplied over its non-zero
 * dimensions only: the same sum to the bit (the skipped terms are exact zeros), at a fifth of the work. Hybrid
 * search scores every lexical candidate this way (hybrid.ts), so this is most of its dense half's cost.
 */
export function cosineTo(store: NamespaceStore, vector: Float32Array): CosineOf {
  const inverseQuery = inverseNorm(vector);
  const { dimension } = store;
  const nonZero: number[] = [];
  for (let i = 0; i < vector.length; i++) if (vector[i] !== 0) nonZero.push(i);
  if (nonZero.length * 2 > dimension) {
    return (slot) => {
      const { arena, inverseNorms } = store;
      const base = slot * dimension;
      let dot = 0;
      for (let i = 0; i < dimension; i++) dot += (arena[base + i] as number) * (vector[i] as number);
      return clamp(dot * (inverseNorms[slot] as number) * inverseQuery);
    };
  }
  const at = Int32Array.from(nonZero);
  const values = Float32Array.from(nonZero, (i) => vector[i] as number);
  const count = at.length;
  return (slot) => {
    const { arena, inverseNorms } = store; // read per call: a write may grow the arena between two searches
    const base = slot * dimension;
    let dot = 0;
    for (let j = 0; j < count; j++) dot += (arena[base + (at[j] as number)] as number) * (values[j] as number);
    return clamp(dot * (inverseNorms[slot] as number) * inverseQuery);
  };
}

export function inverseNorm(vector: Float32Array): number {
  let squared = 0;
  for (let i = 0; i < vector.length; i++) squared += (vector[i] as number) * (vector[i] as number);
  return squared > 0 ? 1 / Math.sqrt(squared) : 0;
}

function clamp(score: number): number {
  if (!(score > 0)) return 0; // also NaN (a zero vector) → 0
  return Math.min(score, 1);
}
