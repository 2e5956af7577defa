import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { chunkTerms, querySpeakerIds, queryTermFrequencies, type VectorItem, type VectorMetadata } from '@memgate/core';
import { afterEach, describe, expect, it } from 'vitest';
import { metadataFor } from '../../../../test/conformance/vector-index.ts';
import { exhaustive, generator, type Live } from './hybrid-oracle.ts';
import { closeOpenedIndexes, freshDir, openIndex } from './test-indexes.ts';

const DIMENSION = 8;
const NAMESPACE = 'user:u1';
const noGraph = { denseGraph: false };

const metadata = (documentId: string, scope = 'internal'): VectorMetadata =>
  metadataFor({ documentId, scopes: [scope] });

afterEach(closeOpenedIndexes);

describe('local vector index without a graph (the lexical embedder)', () => {
  /**
   * A random corpus through upserts, deletes and a restart, searched with and without filters and speakers; the
   * count of queries whose exhaustive top the lexical candidates alone decide ('fewer', 'bounded'), or not.
   */
  async function searchRandomCorpus(dimension: number, lexicalWeights: number[]) {
    const random = generator(11);
    const vocabulary = Array.from({ length: 80 }, (_, i) => `word${i.toString(36)}z`);
    const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 3)] as string;
    const speakers = ['Ann', 'Bob'];
    const text = () => {
      const words = Array.from({ length: 2 + Math.floor(random() * 20) }, word).join(' ');
      return random() < 0.5 ? `${speakers[Math.floor(random() * 2)]}: ${words}` : words;
    };
    const vector = () => Float32Array.from({ length: dimension }, () => random() - 0.5);
    const dir = freshDir('memgate-no-graph-');
    let index = await openIndex(dir, 64 * 1024, noGraph);
    const live = new Map<string, Live>();
    const ids: string[] = [];
    const decided = { fewer: 0, bounded: 0, other: 0 };
    for (let step = 0; step < 40; step++) {
      const texts = Array.from({ length: 5 + Math.floor(random() * 30) }, text);
      const terms = chunkTerms(texts);
      const items: VectorItem[] = texts.map((_, i) => {
        const id = `chunk-${step}-${i}`;
        ids.push(id);
        return {
          id,
          values: vector(),
          metadata: metadata(`doc-${step % 5}`, random() < 0.2 ? 'external' : 'internal'),
          ...terms[i],
        };
      });
      await index.upsert(NAMESPACE, items);
      for (const item of items) live.set(item.id, item);
      const gone = Array.from({ length: Math.floor(random() * 8) }, () => ids[Math.floor(random() * ids.length)]);
      await index.delete(NAMESPACE, gone as string[]);
      for (const id of gone) live.delete(id as string);
      if (step === 20) {
        await index.close();
        index = await openIndex(dir, 64 * 1024, noGraph);
      }
      for (const filter of [undefined, { scopes: 'external' }, { documentId: 'doc-3' }]) {
        // Some queries hold a rare word only: fewer lexical matches than top_k.
        const asked = Array.from({ length: 1 + Math.floor(random() * 3) }, word).join(' ');
        const queryText = random() < 0.3 ? `${asked} ${speakers[0]}` : asked;
        const query = {
          vector: vector(),
          terms: queryTermFrequencies(queryText),
          speakers: { terms: querySpeakerIds(queryText), factor: 0.5 },
          lexicalWeight: lexicalWeights[step % lexicalWeights.length] as number,
          topK: [1, 5, 20][Math.floor(random() * 3)] as number,
          ...(filter ? { filter } : {}),
        };
        const { top, all, lexicalMatches } = exhaustive(live, query);
        const found = await index.query(NAMESPACE, query);
        // Always: as many as the namespace holds, each with its exact score, best first.
        expect(found).toHaveLength(top.length);
        found.forEach((match, i) => {
          expect(match.score).toBeCloseTo(all.get(match.id) as number, 6);
          if (i > 0) expect(match.score).toBeLessThanOrEqual((found[i - 1]?.score as number) + 1e-9);
        });
        // Exactly the exhaustive top when fewer slots match lexically than top_k (the exact dense top joins
        // them), or when every lexical match is scored (at most 100, hybrid.ts) and no slot without one could
        // score the top's last (1 − w: its cosine is at most 1).
        const last = top.at(-1)?.score ?? 0;
        const bounded = lexicalMatches <= Math.max(100, 4 * query.topK) && last >= 1 - query.lexicalWeight;
        const kind = lexicalMatches < query.topK ? 'fewer' : bounded ? 'bounded' : 'other';
        decided[kind]++;
        // A namespace this small is scanned exactly in every case (hybrid.ts, SMALL_SCAN: 250,000 multiply-adds).
        if (kind === 'other' && live.size * dimension > 250_000) continue;
        found.forEach((match, i) => {
          expect(match.score).toBeCloseTo(top[i]?.score as number, 6);
        });
      }
    }
    return decided;
  }

  it('returns the exhaustive top whenever the lexical candidates decide it, through deletes and a restart', async () => {
    const decided = await searchRandomCorpus(512, [0.8, 0.7, 1]);
    expect(decided.fewer).toBeGreaterThan(10);
    expect(decided.bounded).toBeGreaterThan(40);
  }, 60_000);

  it('returns the exhaustive top in a namespace small enough to scan, also where a slot with no lexical match enters', async () => {
    const decided = await searchRandomCorpus(8, [0.3, 0.8]);
    expect(decided.other).toBeGreaterThan(10);
  }, 60_000);

  it("returns the oracle's top 10 when fewer than 10 texts hold a query term", async () => {
    const random = generator(5);
    const texts = Array.from({ length: 60 }, (_, i) => (i % 20 === 3 ? 'the rare gizmo here' : `filler text ${i}`));
    const terms = chunkTerms(texts);
    const items = texts.map((_, i) => ({
      id: `t${i}`,
      values: Float32Array.from({ length: DIMENSION }, () => random() - 0.5),
      metadata: metadata('d'),
      ...terms[i],
    }));
    const index = await openIndex(freshDir('memgate-no-graph-'), undefined, noGraph);
    await index.upsert(NAMESPACE, items);
    const live = new Map<string, Live>(items.map((item) => [item.id, item]));
    const query = {
      vector: items[7]?.values as Float32Array,
      terms: queryTermFrequencies('gizmo'),
      lexicalWeight: 0.8,
    };
    const { top, lexicalMatches } = exhaustive(live, { ...query, topK: 10 });
    expect(lexicalMatches).toBe(3);
    const found = await index.query(NAMESPACE, { ...query, topK: 10 });
    expect(found.map((match) => match.id)).toEqual(top.map((match) => match.id));
    // The three holders first, then the nearest vectors: t7 itself among them.
    expect(
      found
        .slice(0, 3)
        .map((match) => match.id)
        .sort(),
    ).toEqual(['t23', 't3', 't43']);
    expect(found.map((match) => match.id)).toContain('t7');
  });

  it('answers queries without terms, or with lexical weight 0, with the exact dense top (any filter)', async () => {
    const random = generator(3);
    const items = Array.from({ length: 300 }, (_, i) => ({
      id: `v${i}`,
      values: Float32Array.from({ length: DIMENSION }, () => random() - 0.5),
      metadata: metadata(`doc-${i % 3}`),
      ...chunkTerms([`word${i % 7}`])[0],
    }));
    const index = await openIndex(freshDir('memgate-no-graph-'), undefined, noGraph);
    await index.upsert(NAMESPACE, items);
    const live = new Map<string, Live>(items.map((item) => [item.id, item]));
    for (const filter of [undefined, { documentId: 'doc-1' }]) {
      const vector = Float32Array.from({ length: DIMENSION }, () => random() - 0.5);
      const terms = queryTermFrequencies('word3');
      const { top } = exhaustive(live, { vector, terms, lexicalWeight: 0, topK: 10, ...(filter ? { filter } : {}) });
      for (const query of [
        { vector, topK: 10 },
        { vector, topK: 10, terms, lexicalWeight: 0 },
      ]) {
        const found = await index.query(NAMESPACE, { ...query, ...(filter ? { filter } : {}) });
        expect(found.map((match) => match.id)).toEqual(top.map((match) => match.id));
      }
    }
  });

  it('writes no graph, and reads a directory written with one (and back) with the same answers', async () => {
    const random = generator(9);
    const items = Array.from({ length: 200 }, (_, i) => ({
      id: `v${i}`,
      values: Float32Array.from({ length: DIMENSION }, () => random() - 0.5),
      metadata: metadata('d'),
      ...chunkTerms([`alpha${i % 40} beta`])[0],
    }));
    const queries = Array.from({ length: 5 }, (_, i) => ({
      vector: Float32Array.from({ length: DIMENSION }, () => random() - 0.5),
      terms: queryTermFrequencies(`alpha${i}`),
      lexicalWeight: 0.8,
      topK: 10,
    }));
    const dir = freshDir('memgate-no-graph-');
    const graphFiles = () =>
      readdirSync(dir).flatMap((name) => readdirSync(join(dir, name)).filter((file) => file.endsWith('.usearch')));
    // A snapshot after every batch; the second one holds the graph, complete once the first write returned.
    const withGraph = await openIndex(dir, 1, { maxUngraphed: 0 });
    await withGraph.upsert(NAMESPACE, items);
    await withGraph.upsert(NAMESPACE, items.slice(0, 1));
    const before = await Promise.all(queries.map((query) => withGraph.query(NAMESPACE, query)));
    await withGraph.close();
    expect(graphFiles()).toHaveLength(1);
    const without = await openIndex(dir, 1, noGraph);
    expect(await Promise.all(queries.map((query) => without.query(NAMESPACE, query)))).toEqual(before);
    await without.upsert(NAMESPACE, items.slice(0, 10)); // a new generation, written without a graph
    await without.close();
    expect(graphFiles()).toHaveLength(0);
    const again = await openIndex(dir, 1); // graph on: built again from the vectors
    expect(await Promise.all(queries.map((query) => again.query(NAMESPACE, query)))).toEqual(before);
  });
});

describe('local vector index: a query vector of zeros', () => {
  it.each([
    ['with a graph', {}],
    ['without a graph', noGraph],
  ])('keeps its filter and scores 0 (%s)', async (_, options) => {
    const index = await openIndex(freshDir('memgate-zero-'), undefined, options);
    const random = generator(4);
    await index.upsert(
      NAMESPACE,
      Array.from({ length: 40 }, (_, i) => ({
        id: `v${i}`,
        values: Float32Array.from({ length: DIMENSION }, () => random() - 0.5),
        metadata: metadata(`doc-${i % 4}`, i % 2 === 0 ? 'external' : 'internal'),
      })),
    );
    const zero = new Float32Array(DIMENSION);
    for (const filter of [{ scopes: 'external' }, { documentId: 'doc-1' }]) {
      const found = await index.query(NAMESPACE, { vector: zero, topK: 10, filter });
      expect(found).toHaveLength(10);
      for (const match of found) {
        expect(match.score).toBe(0);
        expect(filter.scopes ? match.metadata.scopes : [match.metadata.documentId]).toContain(
          filter.scopes ?? filter.documentId,
        );
      }
    }
  });
});
