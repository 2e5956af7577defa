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
