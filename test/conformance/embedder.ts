import type { Embedder } from '@memgate/core';
import { describe, expect, it } from 'vitest';

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] ?? 0) * (b[i] ?? 0);
  return sum;
}

const DOCUMENTS = [
  'To reset your password, open account settings and choose "Reset password".',
  'Quarterly revenue grew twelve percent, driven by strong sales in the northern region.',
  'The hiking trail climbs through pine forest to a lake below the summit.',
];

/**
 * The Embedder port's contract, run by every adapter. `factory` may be async (a stub server to start).
 * Checks: one vector per text in order, the declared dimension, L2 norm 1, determinism, batch = single,
 * and that a query ranks its related document first.
 */
export function embedderConformance(name: string, factory: () => Embedder | Promise<Embedder>): void {
  describe(`Embedder conformance: ${name}`, () => {
    it('returns one vector of the declared dimension per text, in order', async () => {
      const embedder = await factory();
      expect(embedder.id).toMatch(/\S/);
      const vectors = await embedder.embed(DOCUMENTS, 'document');
      expect(vectors).toHaveLength(DOCUMENTS.length);
      for (const vector of vectors) {
        expect(vector).toBeInstanceOf(Float32Array);
        expect(vector.length).toBe(embedder.dimension);
      }
      const singles = await Promise.all(DOCUMENTS.map(async (text) => (await embedder.embed([text], 'document'))[0]));
      singles.forEach((single, i) => {
        expect(dot(single as Float32Array, vectors[i] as Float32Array)).toBeCloseTo(1, 4);
      });
    });

    it('returns nothing for an empty batch', async () => {
      const embedder = await factory();
      expect(await embedder.embed([], 'document')).toEqual([]);
    });

    it('gives L2-normalised, deterministic vectors', async () => {
      const embedder = await factory();
      const [first] = await embedder.embed([DOCUMENTS[0] as string], 'document');
      const [again] = await embedder.embed([DOCUMENTS[0] as string], 'document');
      expect(Math.sqrt(dot(first as Float32Array, first as Float32Array))).toBeCloseTo(1, 4);
      expect(dot(first as Float32Array, again as Float32Array)).toBeCloseTo(1, 4);
    });

    it('ranks the related document first for a query', async () => {
      const embedder = await factory();
      const documents = await embedder.embed(DOCUMENTS, 'document');
      const [query] = await embedder.embed(['how do I reset my password'], 'query');
      const scores = documents.map((vector) => dot(query as Float32Array, vector));
      expect(scores[0]).toBeGreaterThan(Math.max(scores[1] ?? 0, scores[2] ?? 0));
    });
  });
}
