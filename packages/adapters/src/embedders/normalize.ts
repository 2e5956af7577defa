/** Scales a vector to unit L2 norm in place (the zero vector stays zero); the Embedder port promises unit vectors. */
export function normalizeInPlace(vector: Float32Array): Float32Array {
  let squared = 0;
  for (let i = 0; i < vector.length; i++) squared += (vector[i] as number) * (vector[i] as number);
  if (squared > 0) {
    const scale = 1 / Math.sqrt(squared);
    for (let i = 0; i < vector.length; i++) vector[i] = (vector[i] as number) * scale;
  }
  return vector;
}

/** Runs `work` over consecutive slices of at most `size` items, in order, and concatenates the results. */
export async function inBatches<T, R>(
  items: readonly T[],
  size: number,
  work: (batch: T[]) => Promise<R[]>,
): Promise<R[]> {
  const results: R[] = [];
  for (let start = 0; start < items.length; start += size)
    results.push(...(await work(items.slice(start, start + size))));
  return results;
}
