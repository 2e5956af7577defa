import { chunkTerms, NO_NEIGHBOURS, queryTermFrequencies, type VectorItem } from '@memgate/core';
import { describe, expect, it } from 'vitest';
import { metadataFor } from '../../../../test/conformance/vector-index.ts';
import { NamespaceStore } from './store.ts';

describe('lexical sweep', () => {
  it('matches only the slots of this query, after a query whose owners were in another block', () => {
    // Slot 0 holds "alpha"; slots 96-127 (the sweep's ring block 3) hold "beta".
    const store = new NamespaceStore(4, undefined, false);
    const texts = Array.from({ length: 130 }, (_, i) =>
      i === 0 ? 'alpha' : i >= 96 && i < 128 ? 'beta' : `filler${i}`,
    );
    const terms = chunkTerms(texts, NO_NEIGHBOURS);
    const items: VectorItem[] = texts.map((_, i) => ({
      id: `chunk-${i}`,
      values: Float32Array.of(1, 0, 0, i),
      metadata: metadataFor(),
      ...terms[i],
    }));
    store.upsert(items);
    expect(store.lexical.score(queryTermFrequencies('beta'), undefined).count).toBe(32);
    // The first block read is block 0: the sweep once finished "block -1" too, visiting slots -32..-1 with what the
    // ring held of the previous query's block 3 (phantom matches at negative slots).
    const alpha = store.lexical.score(queryTermFrequencies('alpha'), undefined);
    expect(Array.from(alpha.slots.subarray(0, alpha.count))).toEqual([0]);
  });
});
