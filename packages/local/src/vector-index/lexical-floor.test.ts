import {
  chunkTerms,
  DEFAULT_LEXICAL_WEIGHT,
  NO_NEIGHBOURS,
  neighbourOffsets,
  queryTermFrequencies,
  type SparseValues,
  type VectorItem,
  type VectorQuery,
} from '@memgate/core';
import { describe, expect, it } from 'vitest';
import { metadataFor } from '../../../../test/conformance/vector-index.ts';
import { searchNamespace } from './hybrid.ts';
import { generator } from './hybrid-oracle.ts';
import { NamespaceStore } from './store.ts';

// Enough dimensions that 700 vectors are not cheap to scan (hybrid.ts SMALL_SCAN): fusion takes the best 100 only.
const DIMENSION = 512;

/**
 * Without a graph, fusion looks only at the lexical matches scoring at least the 101st best (`floor`, hybrid.ts
 * candidatesOf): the same top, scores and order as fusion over every match, also where many slots tie at the floor
 * (repeated texts) and with a filter.
 */
describe('hybrid search without a graph, from the best lexical matches only', () => {
  it('answers as fusion over every lexical match does', () => {
    const random = generator(5);
    const vocabulary = Array.from({ length: 30 }, (_, i) => `word${i.toString(36)}z`);
    const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 2)] as string;
    // A few texts repeated many times: equal lexical scores, many of them at the 101st best.
    const texts = Array.from({ length: 40 }, () =>
      Array.from({ length: 2 + Math.floor(random() * 6) }, word).join(' '),
    );
    const store = new NamespaceStore(DIMENSION, undefined, false);
    for (let batch = 0; batch < 7; batch++) {
      const chunks = Array.from({ length: 100 }, () => texts[Math.floor(random() * texts.length)] as string);
      const terms = chunkTerms(chunks);
      const items: VectorItem[] = chunks.map((_, i) => ({
        id: `chunk-${batch}-${i}`,
        values: Float32Array.from({ length: DIMENSION }, () => random() - 0.5),
        metadata: metadataFor({ documentId: `doc-${batch}`, scopes: [i % 4 === 0 ? 'public' : 'internal'] }),
        ...terms[i],
      }));
      neighbourOffsets(items.length).forEach(({ offsets, weights }, i) => {
        const neighbours = offsets.map((offset) => (items[i + offset] as VectorItem).id);
        (items[i] as VectorItem).chain = { neighbours, weights, unlent: [] };
      });
      store.upsert(items);
    }
    const lexical = store.lexical;
    const keeping = lexical.score.bind(lexical);
    let limited = 0;
    for (let q = 0; q < 40; q++) {
      const text = Array.from({ length: 1 + Math.floor(random() * 3) }, word).join(' ');
      const query: VectorQuery = {
        vector: Float32Array.from({ length: DIMENSION }, () => random() - 0.5),
        topK: 10,
        terms: queryTermFrequencies(text),
        lexicalWeight: q % 2 === 0 ? DEFAULT_LEXICAL_WEIGHT : 0.5,
        ...(q % 3 === 0 ? { filter: { scopes: 'internal' } } : {}),
      };
      const found = searchNamespace(store, query);
      const floor = keeping(query.terms as SparseValues, undefined, 101);
      if (floor.count > 101) limited++;
      // Every match looked at: the match without `keep` has no floor.
      lexical.score = (terms, accepts) => keeping(terms, accepts);
      try {
        expect(found).toEqual(searchNamespace(store, query));
      } finally {
        lexical.score = keeping;
      }
    }
    // Most queries match more slots than fusion takes.
    expect(limited).toBeGreaterThan(20);
  });

  it('takes the same 101 as fusion over every match where they tie, and the cosine decides among them', () => {
    const random = generator(9);
    // 300 chunks holding "alpha" with 0-5 other words: six lexical scores, 50 slots each, the 101st inside a tie.
    const store = new NamespaceStore(DIMENSION, undefined, false);
    const texts = Array.from(
      { length: 300 },
      (_, i) => `alpha ${Array.from({ length: i % 6 }, (_, k) => `w${k}`).join(' ')}`,
    );
    const terms = chunkTerms(texts, NO_NEIGHBOURS);
    // Cosines with the query spread over [-1, 1]: at weight 0.5 any of the 101 can reach the top 10.
    const vector = (first: number) =>
      Float32Array.from({ length: DIMENSION }, (_, d) =>
        d === 0 ? first : d === 1 ? Math.sqrt(1 - first * first) : 0,
      );
    store.upsert(
      texts.map((_, i) => ({
        id: `chunk-${i}`,
        values: vector(2 * random() - 1),
        metadata: metadataFor(),
        ...terms[i],
      })),
    );
    const query: VectorQuery = {
      vector: vector(1),
      topK: 10,
      terms: queryTermFrequencies('alpha'),
      lexicalWeight: 0.5,
    };
    const found = searchNamespace(store, query);
    const lexical = store.lexical;
    const keeping = lexical.score.bind(lexical);
    lexical.score = (terms, accepts) => keeping(terms, accepts);
    try {
      expect(found).toEqual(searchNamespace(store, query));
    } finally {
      lexical.score = keeping;
    }
  });
});
