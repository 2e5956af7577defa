import { chunkTerms, queryTermFrequencies, type VectorItem } from '@memgate/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { axisVector, metadataFor } from '../../../../test/conformance/vector-index.ts';
import type { LocalVectorIndex } from './index.ts';
import { closeOpenedIndexes, freshDir, openIndex } from './test-indexes.ts';

afterEach(async () => {
  vi.useRealTimers();
  await closeOpenedIndexes();
});

const MINUTE = 60_000;
const TEXTS = [
  'pottery class on sunday',
  'violin recital at the museum',
  'pottery kiln repair',
  'garden party invoice',
];
const items = (prefix: string, axis: number): VectorItem[] =>
  chunkTerms(TEXTS).map((terms, i) => ({
    id: `${prefix}-${i}`,
    values: axisVector(16, axis + i),
    metadata: metadataFor({ documentId: prefix }),
    ...terms,
  }));
/**
 * Each query's matches, equal scores by id: a graph loaded from a snapshot and added to need not order exact ties
 * as one built in a single process does (snapshot.test.ts).
 */
const answers = async (index: LocalVectorIndex, namespace: 'user:u1' | 'user:u2') => {
  const found = await Promise.all(
    ['pottery', 'violin museum', 'garden'].map((text, i) =>
      index.query(namespace, {
        vector: axisVector(16, i),
        terms: queryTermFrequencies(text),
        lexicalWeight: 0.8,
        topK: 6,
      }),
    ),
  );
  return found.map((matches) => matches.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id)));
};

describe('local vector index: idle namespaces unloaded', () => {
  it('drops a namespace unused for the set time and answers the same after reloading it, journal included', async () => {
    const dir = freshDir('memgate-unload-');
    const writer = await openIndex(dir, 1); // a snapshot after every batch
    await writer.upsert('user:u1', items('a', 0));
    await writer.close();

    vi.useFakeTimers();
    const index = await openIndex(dir, undefined, { unloadIdleAfterMs: 10 * MINUTE });
    // After the snapshot, only in the journal: an upsert and a delete.
    await index.upsert('user:u1', items('b', 4));
    await index.delete('user:u1', ['a-0']);
    await index.upsert('user:u2', items('c', 8));
    const before = await answers(index, 'user:u1');
    expect(before.flat().map((match) => match.id)).toContain('b-0');
    expect(before.flat().map((match) => match.id)).not.toContain('a-0');

    vi.advanceTimersByTime(6 * MINUTE);
    await answers(index, 'user:u2'); // used: stays loaded
    expect(index.loadedNamespaces().sort()).toEqual(['user:u1', 'user:u2']);
    vi.advanceTimersByTime(5 * MINUTE);
    expect(index.loadedNamespaces()).toEqual(['user:u2']);
    vi.advanceTimersByTime(10 * MINUTE);
    expect(index.loadedNamespaces()).toEqual([]);

    expect(await answers(index, 'user:u1')).toEqual(before);
    expect(index.loadedNamespaces()).toEqual(['user:u1']);
    // Writes after a reload go on where the journal was.
    await index.upsert('user:u1', items('d', 12));
    vi.advanceTimersByTime(11 * MINUTE);
    const control = await openIndex(freshDir('memgate-unload-'));
    for (const prefix of ['a', 'b']) await control.upsert('user:u1', items(prefix, prefix === 'a' ? 0 : 4));
    await control.delete('user:u1', ['a-0']);
    await control.upsert('user:u1', items('d', 12));
    expect(await answers(index, 'user:u1')).toEqual(await answers(control, 'user:u1'));
  });
});
