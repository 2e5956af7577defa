import { createLexicalEmbedder } from '@memgate/adapters';
import { chunkTerms, queryTermFrequencies, type VectorItem, type VectorMetadata } from '@memgate/core';
import { createTimeSlice } from '@memgate/core/history/time-slice';
import { describe, expect, it } from 'vitest';
import { metadataFor } from '../../../../test/conformance/vector-index.ts';
import { searchNamespace } from './hybrid.ts';
import { generator } from './hybrid-oracle.ts';
import { searchDense } from './search.ts';
import { readSnapshot, writeSnapshot } from './snapshot.ts';
import { NamespaceStore } from './store.ts';
import { freshDir } from './test-indexes.ts';

const DIMENSION = 512;
const embedder = createLexicalEmbedder({ dimension: DIMENSION });

const metadata = (documentId: string, scope: string): VectorMetadata => metadataFor({ documentId, scopes: [scope] });

/** Texts over a skewed vocabulary, so queries share terms with many chunks and cosines crowd near the top. */
function corpus(seed: number) {
  const random = generator(seed);
  const vocabulary = Array.from({ length: 300 }, (_, i) => `word${i.toString(36)}q`);
  const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 2)] as string;
  const text = (words: number) => Array.from({ length: words }, word).join(' ');
  return { random, text };
}

async function itemsOf(texts: string[], prefix: string, random: () => number): Promise<VectorItem[]> {
  const vectors = await embedder.embed(texts, 'document');
  const terms = chunkTerms(texts);
  return texts.map((_, i) => ({
    id: `${prefix}-${i}`,
    values: vectors[i] as Float32Array,
    metadata: metadata(`doc-${i % 7}`, random() < 0.3 ? 'external' : 'internal'),
    ...terms[i],
  }));
}

describe('compact vectors (namespaces without a graph)', () => {
  it('search as float32 vectors do, to the bit, from the snapshot file and from vectors written since', async () => {
    const { random, text } = corpus(5);
    const dir = freshDir('memgate-compact-');
    const compact = new NamespaceStore(DIMENSION, undefined, false);
    const float = new NamespaceStore(DIMENSION, undefined, false, false);
    const write = (items: VectorItem[]) => {
      compact.upsert(items);
      float.upsert(items);
    };
    write(
      await itemsOf(
        Array.from({ length: 1500 }, () => text(20 + Math.floor(random() * 60))),
        'a',
        random,
      ),
    );
    writeSnapshot(dir, 1, compact); // from now on the compact store reads these vectors from the file
    const restarted = await readSnapshot(dir, 1, DIMENSION, false, createTimeSlice());
    // Written since the snapshot: replacements of snapshotted ids, new ids, deletes (slots then reused).
    const since = await itemsOf(
      Array.from({ length: 400 }, () => text(10 + Math.floor(random() * 40))),
      'a',
      random,
    );
    const gone = Array.from({ length: 60 }, (_, i) => `a-${400 + i * 7}`);
    for (const store of [compact, float, restarted]) {
      store.upsert(since.slice(0, 200));
      store.delete(gone);
      store.upsert(since.slice(200).map((item, i) => ({ ...item, id: `b-${i}` })));
    }
    let compared = 0;
    for (let q = 0; q < 60; q++) {
      const asked = text(1 + Math.floor(random() * 6));
      const [vector] = (await embedder.embed([asked], 'query')) as [Float32Array];
      const filter = [undefined, { scopes: 'external' }, { documentId: 'doc-3' }][q % 3];
      const query = {
        vector,
        terms: queryTermFrequencies(asked),
        lexicalWeight: [0.8, 0.3, 0][q % 3] as number,
        topK: [1, 10, 40][Math.floor(random() * 3)] as number,
        ...(filter ? { filter } : {}),
      };
      const expected = searchNamespace(float, query);
      expect(searchNamespace(compact, query)).toEqual(expected);
      expect(searchNamespace(restarted, query)).toEqual(expected);
      // The exact scans alone: every slot, the filtered ones, and the zero vector (every score 0).
      const dense = { vector, topK: query.topK, ...(filter ? { filter } : {}) };
      expect(searchDense(compact, dense)).toEqual(searchDense(float, dense));
      expect(searchDense(restarted, dense)).toEqual(searchDense(float, dense));
      compared += expected.length;
    }
    const zero = { vector: new Float32Array(DIMENSION), topK: 10 };
    expect(searchDense(compact, zero)).toEqual(searchDense(float, zero));
    expect(compared).toBeGreaterThan(500);
    // A second snapshot merges the file and the vectors written since: a restart from it still searches alike.
    writeSnapshot(dir, 2, compact);
    const again = await readSnapshot(dir, 2, DIMENSION, false, createTimeSlice());
    const [vector] = (await embedder.embed(['word1q word2q word3q'], 'query')) as [Float32Array];
    expect(searchDense(again, { vector, topK: 30 })).toEqual(searchDense(float, { vector, topK: 30 }));
    expect(searchDense(compact, { vector, topK: 30 })).toEqual(searchDense(float, { vector, topK: 30 }));
    for (const store of [compact, restarted, again]) store.close();
  });

  it('hold a loaded namespace in about a quarter of float32 memory', async () => {
    const { random, text } = corpus(9);
    const dir = freshDir('memgate-compact-');
    const float = new NamespaceStore(DIMENSION, undefined, false, false);
    const count = 12_000;
    for (let first = 0; first < count; first += 1000) {
      const texts = Array.from({ length: 1000 }, () => text(30));
      float.upsert(await itemsOf(texts, `c${first}`, random));
    }
    writeSnapshot(dir, 1, float);
    const loaded = await readSnapshot(dir, 1, DIMENSION, false, createTimeSlice());
    expect(loaded.size).toBe(count);
    // Every typed array the vectors hold (process.memoryUsage() lags: array buffers are freed in the background).
    const bytesOf = (vectors: object) =>
      Object.values(vectors)
        .flatMap((value) => (Array.isArray(value) ? value : [value]))
        .reduce((sum, value) => sum + (ArrayBuffer.isView(value) ? value.byteLength : 0), 0);
    const floatBytes = bytesOf(float.vectors);
    expect(floatBytes).toBeGreaterThanOrEqual(count * DIMENSION * 4);
    // 8-bit codes and four float32 per slot: 528 bytes a slot against 2,052.
    expect(bytesOf(loaded.vectors) / floatBytes).toBeLessThan(0.3);
    loaded.close();
  });
});
