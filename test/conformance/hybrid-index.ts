import { randomUUID } from 'node:crypto';
import {
  chunkTerms,
  NO_NEIGHBOURS,
  queryTermFrequencies,
  type TenantKey,
  type VectorIndex,
  type VectorItem,
  type VectorMetadata,
} from '@memgate/core';
import { describe, expect, it, vi } from 'vitest';
import { axisVector, metadataFor } from './vector-index.ts';

/**
 * The lexical half of the VectorIndex port (hybrid retrieval), run by every adapter: terms stored beside each
 * vector under the same id, matched by a query's terms, fused into one score in [0, 1], and gone with the vector.
 */
export function hybridIndexConformance(
  name: string,
  factory: () => VectorIndex | Promise<VectorIndex>,
  options: { dimension?: number; eventual?: boolean } = {},
): void {
  const dimension = options.dimension ?? 16;
  const check = (assertion: () => Promise<void>) =>
    options.eventual ? vi.waitFor(assertion, { timeout: 60_000, interval: 1_000 }) : assertion();
  const namespace = (): TenantKey => `user:hybrid-${randomUUID()}`;
  const item = (id: string, axis: number, text: string, metadata: Partial<VectorMetadata> = {}): VectorItem => ({
    id,
    values: axisVector(dimension, axis),
    metadata: metadataFor(metadata),
    ...chunkTerms([text], NO_NEIGHBOURS)[0],
  });
  const query = (axis: number, text: string, lexicalWeight: number, topK = 10) => ({
    vector: axisVector(dimension, axis),
    terms: queryTermFrequencies(text),
    lexicalWeight,
    topK,
  });

  describe(`VectorIndex hybrid conformance: ${name}`, () => {
    it('ranks the vector whose terms match above an equally close one whose terms do not', async () => {
      const index = await factory();
      const ns = namespace();
      await index.upsert(ns, [
        item('plain', 0, 'the weather was mild all week'),
        item('match', 0, 'Caroline painted a sunrise over the lake'),
      ]);
      await check(async () => {
        const matches = await index.query(ns, query(0, 'What did Caroline paint?', 0.5));
        expect(matches.map((match) => match.id)).toEqual(['match', 'plain']);
        const [match, plain] = matches.map((found) => found.score) as [number, number];
        expect(plain).toBeCloseTo(0.5, 2); // (1 − 0.5) · cosine 1, no lexical match
        expect(match).toBeGreaterThan(plain);
        expect(match).toBeLessThanOrEqual(1);
      });
    });

    it('finds by its terms a vector far from the query, even when topK is 1', async () => {
      const index = await factory();
      const ns = namespace();
      await index.upsert(ns, [
        item('near', 0, 'a note about groceries and errands'),
        ...Array.from({ length: 8 }, (_, i) => item(`filler-${i}`, 1, `errands list number ${i}`)),
        item('far', 7, 'the adoption agency called about the interview'),
      ]);
      await check(async () => {
        const [best] = await index.query(ns, query(0, 'adoption interview', 0.8, 1));
        expect(best?.id).toBe('far');
        expect(best?.score).toBeGreaterThan(0.2); // above what 'near' gets: 0.2 · cosine 1
        expect(best?.score).toBeLessThanOrEqual(1);
      });
    });

    it('without terms or with weight 0 the score is the cosine alone', async () => {
      const index = await factory();
      const ns = namespace();
      await index.upsert(ns, [item('a', 0, 'adoption interview'), item('b', 3, 'adoption interview')]);
      await check(async () => {
        for (const weight of [0, undefined]) {
          const matches = await index.query(ns, { vector: axisVector(dimension, 0), topK: 2, lexicalWeight: weight });
          expect(matches[0]?.id).toBe('a');
          expect(matches[0]?.score).toBeCloseTo(1, 3);
        }
        const zero = await index.query(ns, query(0, 'adoption interview', 0));
        expect(zero[0]?.score).toBeCloseTo(1, 3);
      });
    });

    it('forgets the terms of a deleted vector and replaces those of one upserted again', async () => {
      const index = await factory();
      const ns = namespace();
      await index.upsert(ns, [
        item('deleted', 0, 'violin lessons on tuesday'),
        item('replaced', 1, 'violin recital in june'),
        item('other', 2, 'a walk in the park'),
      ]);
      await index.delete(ns, ['deleted']);
      await index.upsert(ns, [item('replaced', 1, 'pottery class in june')]);
      await check(async () => {
        const violin = await index.query(ns, query(5, 'violin', 1));
        expect(violin.map((match) => match.id)).not.toContain('deleted');
        for (const match of violin) expect(match.score).toBe(0);
        const [pottery] = await index.query(ns, query(5, 'pottery', 1));
        expect(pottery?.id).toBe('replaced');
        expect(pottery?.score).toBeGreaterThan(0);
      });
    });

    it('applies the filter to vectors found by their terms', async () => {
      const index = await factory();
      const ns = namespace();
      await index.upsert(ns, [
        item('internal', 0, 'a quiet morning'),
        item('external', 6, 'marathon training plan', { scopes: ['external'] }),
      ]);
      await check(async () => {
        const matches = await index.query(ns, {
          ...query(0, 'marathon training', 0.9),
          filter: { scopes: 'internal' },
        });
        expect(matches.map((match) => match.id)).toEqual(['internal']);
      });
    });

    it('never matches a vector by its context terms alone', async () => {
      const index = await factory();
      const ns = namespace();
      const [kitchen, garden] = chunkTerms(['coffee beans in the cupboard', 'tomatoes watered every morning'], {
        span: 1,
        before: 0.3,
        after: 0.3,
      });
      await index.upsert(ns, [
        { ...item('kitchen', 0, ''), ...kitchen },
        { ...item('garden', 1, ''), ...garden },
      ]);
      await check(async () => {
        const matches = await index.query(ns, query(5, 'coffee beans', 1));
        expect(matches.map((match) => [match.id, match.score > 0])).toEqual([
          ['kitchen', true],
          ['garden', false],
        ]);
      });
    });

    it('keeps the terms of one namespace out of another', async () => {
      const index = await factory();
      const [mine, theirs] = [namespace(), namespace()];
      await index.upsert(mine, [item('mine', 0, 'a quiet morning')]);
      await index.upsert(theirs, [item('theirs', 0, 'secret merger plans')]);
      await check(async () => {
        const matches = await index.query(mine, query(3, 'merger plans', 1));
        expect(matches.map((match) => match.id)).toEqual(['mine']);
        expect(matches[0]?.score).toBe(0);
      });
    });
  });
}
