import { chunkTerms, type VectorItem } from '@memgate/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { axisVector, metadataFor } from '../../../../test/conformance/vector-index.ts';
import { collectGarbage } from './collect-garbage.ts';
import { closeOpenedIndexes, freshDir, openIndex } from './test-indexes.ts';

vi.mock('./collect-garbage.ts', () => ({ collectGarbage: vi.fn() }));

afterEach(async () => {
  vi.mocked(collectGarbage).mockClear();
  await closeOpenedIndexes();
});

const items = (prefix: string, count: number): VectorItem[] =>
  chunkTerms(Array.from({ length: count }, (_, i) => `note ${i} about pottery`)).map((terms, i) => ({
    id: `${prefix}-${i}`,
    values: axisVector(16, i % 16),
    metadata: metadataFor({ documentId: prefix }),
    ...terms,
  }));

const query = { vector: axisVector(16, 0), topK: 3 };
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe('local vector index: memory of loading a large namespace', () => {
  it('collects garbage once after loading a namespace of at least the set size from disk, not for smaller ones', async () => {
    const dir = freshDir('memgate-collect-');
    const writer = await openIndex(dir, 1); // a snapshot after every batch: loading reads it back
    await writer.upsert('user:large', items('a', 6));
    await writer.upsert('user:small', items('b', 5));
    await writer.close();

    const index = await openIndex(dir, undefined, { collectAfterLoading: 6 });
    expect(await index.query('user:small', query)).toHaveLength(3);
    await nextTurn();
    expect(collectGarbage).not.toHaveBeenCalled();

    expect(await index.query('user:large', query)).toHaveLength(3);
    expect(collectGarbage).not.toHaveBeenCalled(); // not inside the request that loaded it
    await nextTurn();
    expect(collectGarbage).toHaveBeenCalledTimes(1);

    // Loaded already: further use collects nothing; nor does a namespace created by a write.
    await index.query('user:large', query);
    await index.upsert('user:new', items('c', 8));
    await nextTurn();
    expect(collectGarbage).toHaveBeenCalledTimes(1);
  });
});
