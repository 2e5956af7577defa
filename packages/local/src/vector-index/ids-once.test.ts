import { getHeapStatistics } from 'node:v8';
import type { VectorItem } from '@memgate/core';
import { afterEach, describe, expect, it } from 'vitest';
import { collectGarbage } from './collect-garbage.ts';
import { closeOpenedIndexes, freshDir, openIndex } from './test-indexes.ts';

afterEach(closeOpenedIndexes);

const NAMESPACE = 'user:u1';
const COUNT = 20_000;
/** Long ids, so their copies dominate what a loaded namespace adds to the heap. */
const idOf = (i: number) => `${'document-with-a-long-identifier-'.repeat(8)}${i}#chunk`;

const heapUsed = () => {
  collectGarbage();
  return getHeapStatistics().used_heap_size;
};

describe('local vector index: ids held once per namespace', () => {
  it('holds each id once when loaded, though its records, shown texts and confirmations each name it', async () => {
    const dir = freshDir('memgate-ids-once-');
    const writer = await openIndex(dir, undefined, { denseGraph: false });
    const vector = new Float32Array(8).fill(0.5);
    for (let first = 0; first < COUNT; first += 2000) {
      const items: VectorItem[] = Array.from({ length: 2000 }, (_, i) => ({
        id: idOf(first + i),
        values: vector,
        text: 't',
        metadata: {
          documentId: 'd',
          userId: 'u1',
          scopes: ['internal'],
          source: 's',
          fileName: 'f.txt',
          docType: 'txt',
          contextType: 'resource',
          tags: [],
        },
      }));
      await writer.upsert(NAMESPACE, items);
      await writer.confirm(
        NAMESPACE,
        items.map((item) => ({ id: item.id, text: 't', tag: 'e:1' })),
      );
    }
    await writer.close(); // a snapshot: the records and the shown texts are read back from their own files
    const before = heapUsed();
    const reader = await openIndex(dir, undefined, { denseGraph: false });
    const [match] = await reader.query(NAMESPACE, { vector, topK: 1 });
    expect(match?.confirmed).toEqual({ text: 't', tag: 'e:1' });
    const grown = heapUsed() - before;
    const idBytes = COUNT * (idOf(0).length + 16); // one copy of the ids: characters and a string header each
    // One copy with the records and three maps' entries: ~2.6 copies' worth (~4.7 when the shown texts' two maps
    // held the copies they read from their file).
    expect(grown / idBytes).toBeLessThan(3.5);
  });
});
