import type { VectorIndex } from '@memgate/core';

export interface LocalVectorIndex extends VectorIndex {
  /** Flushes to disk and releases the index. */
  close(): Promise<void>;
}

/** Embedded persistent vector index under `dir`. */
export async function createLocalVectorIndex(options: { dir: string }): Promise<LocalVectorIndex> {
  void options;
  throw new Error('embedded vector index: not built yet');
}
