import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalVectorIndex, type LocalVectorIndex, type LocalVectorIndexOptions } from './index.ts';

// For the index's own tests: indexes opened in a fresh directory and closed after each test
// (`afterEach(closeOpenedIndexes)`), so no test leaves a journal open for the next one.

const opened: LocalVectorIndex[] = [];

/** A new, empty directory for an index under the system's temporary folder. */
export const freshDir = (prefix = 'memgate-vectors-') => mkdtempSync(join(tmpdir(), prefix));

/** Opens the index in `dir`, to be closed by `closeOpenedIndexes`. */
export async function openIndex(
  dir: string,
  snapshotAfterBytes?: number,
  options: Omit<LocalVectorIndexOptions, 'dir' | 'snapshotAfterBytes'> = {},
): Promise<LocalVectorIndex> {
  const index = await createLocalVectorIndex({
    dir,
    ...(snapshotAfterBytes === undefined ? {} : { snapshotAfterBytes }),
    ...options,
  });
  opened.push(index);
  return index;
}

export async function closeOpenedIndexes(): Promise<void> {
  await Promise.all(opened.splice(0).map((index) => index.close()));
}

/** Deterministic pseudo-random unit vectors (xorshift), so failures reproduce. */
export function randomVectors(count: number, dimension: number, seed = 7): Float32Array[] {
  let state = seed;
  const next = () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>> 0) / 0xffffffff - 0.5;
  };
  return Array.from({ length: count }, () => {
    const vector = Float32Array.from({ length: dimension }, next);
    const norm = Math.hypot(...vector);
    return vector.map((value) => value / norm);
  });
}
