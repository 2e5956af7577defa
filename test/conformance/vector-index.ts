import { randomUUID } from 'node:crypto';
import type { TenantKey, VectorIndex, VectorItem, VectorMetadata } from '@memgate/core';
import { describe, expect, it, vi } from 'vitest';

export interface VectorIndexConformanceOptions {
  /** Vector dimension the index accepts (a live Pinecone index has a fixed one). Default 16. */
  dimension?: number;
  /** Eventually consistent stores (live Pinecone): poll each expectation until it holds. */
  eventual?: boolean;
}

/** A vector pointing mostly along `axis`, with a small tilt towards `axis + 1`: distinct but predictable neighbours. */
export function axisVector(dimension: number, axis: number, tilt = 0.1): Float32Array {
  const vector = new Float32Array(dimension);
  vector[axis % dimension] = 1;
  vector[(axis + 1) % dimension] = tilt;
  return vector;
}

export function metadataFor(overrides: Partial<VectorMetadata> = {}): VectorMetadata {
  return {
    documentId: 'doc-1',
    userId: 'user-1',
    scopes: ['internal'],
    source: 'manual.pdf',
    fileName: 'manual.pdf',
    docType: 'pdf',
    contextType: 'resource',
    tags: [],
    ...overrides,
  };
}

/**
 * The VectorIndex port's contract, run by every adapter (embedded, Pinecone over a recording, live Pinecone).
 * Each test uses fresh namespaces so adapters backed by a shared store do not interfere.
 */
export function vectorIndexConformance(
  name: string,
  factory: () => VectorIndex | Promise<VectorIndex>,
  options: VectorIndexConformanceOptions = {},
): void {
  const dimension = options.dimension ?? 16;
  const check = (assertion: () => Promise<void>) =>
    options.eventual ? vi.waitFor(assertion, { timeout: 60_000, interval: 1_000 }) : assertion();
  const namespace = (): TenantKey => `user:conformance-${randomUUID()}`;
  const item = (id: string, axis: number, metadata: Partial<VectorMetadata> = {}): VectorItem => ({
    id,
    values: axisVector(dimension, axis),
    metadata: metadataFor(metadata),
  });

  describe(`VectorIndex conformance: ${name}`, () => {
    it('finds upserted vectors best first, with clamped cosine scores and their metadata', async () => {
      const index = await factory();
      const ns = namespace();
      await index.upsert(ns, [item('a', 0, { tags: ['x'] }), item('b', 1), item('c', 5)]);
      await check(async () => {
        const matches = await index.query(ns, { vector: axisVector(dimension, 0), topK: 3 });
        expect(matches.map((match) => match.id)).toEqual(['a', 'b', 'c']);
        expect(matches[0]?.score).toBeCloseTo(1, 3);
        for (const match of matches) expect(match.score).toBeGreaterThanOrEqual(0);
        expect(matches[2]?.score).toBeCloseTo(0, 3);
        expect(matches[0]?.metadata).toEqual(metadataFor({ tags: ['x'] }));
      });
    });

    it('bounds the result count by topK', async () => {
      const index = await factory();
      const ns = namespace();
      await index.upsert(ns, [item('a', 0), item('b', 1), item('c', 2), item('d', 3)]);
      await check(async () => {
        expect(await index.query(ns, { vector: axisVector(dimension, 0), topK: 2 })).toHaveLength(2);
        expect(await index.query(ns, { vector: axisVector(dimension, 0), topK: 10 })).toHaveLength(4);
      });
    });

    it('clamps the similarity of an opposite vector to 0', async () => {
      const index = await factory();
      const ns = namespace();
      await index.upsert(ns, [item('a', 0)]);
      const opposite = axisVector(dimension, 0).map((value) => -value);
      await check(async () => {
        const [match] = await index.query(ns, { vector: opposite, topK: 1 });
        expect(match?.id).toBe('a');
        expect(match?.score).toBe(0);
      });
    });

    it('replaces a vector upserted again under the same id', async () => {
      const index = await factory();
      const ns = namespace();
      await index.upsert(ns, [item('a', 0, { source: 'old' }), item('b', 3)]);
      await index.upsert(ns, [item('a', 2, { source: 'new' })]);
      await check(async () => {
        const matches = await index.query(ns, { vector: axisVector(dimension, 2), topK: 5 });
        expect(matches.map((match) => match.id)).toEqual(['a', 'b']);
        expect(matches[0]?.score).toBeCloseTo(1, 3);
        expect(matches[0]?.metadata.source).toBe('new');
      });
    });

    it('deletes vectors, and ignores ids it does not hold', async () => {
      const index = await factory();
      const ns = namespace();
      await index.upsert(ns, [item('a', 0), item('b', 1)]);
      await check(async () =>
        expect(await index.query(ns, { vector: axisVector(dimension, 0), topK: 5 })).toHaveLength(2),
      );
      await index.delete(ns, ['a', 'never-stored']);
      await index.delete(namespace(), ['nothing-here']);
      await check(async () => {
        const matches = await index.query(ns, { vector: axisVector(dimension, 0), topK: 5 });
        expect(matches.map((match) => match.id)).toEqual(['b']);
      });
    });

    it('keeps namespaces apart and lists them', async () => {
      const index = await factory();
      const [first, second] = [namespace(), namespace()];
      await index.upsert(first, [item('shared-id', 0, { source: 'first' })]);
      await index.upsert(second, [item('shared-id', 0, { source: 'second' })]);
      await check(async () => {
        const [match] = await index.query(first, { vector: axisVector(dimension, 0), topK: 5 });
        expect(match?.metadata.source).toBe('first');
        expect(await index.query(namespace(), { vector: axisVector(dimension, 0), topK: 5 })).toEqual([]);
        const listed = await index.listNamespaces();
        expect(listed).toEqual(expect.arrayContaining([first, second]));
      });
    });

    it('filters by equality, by membership in array attributes, and by several keys at once', async () => {
      const index = await factory();
      const ns = namespace();
      await index.upsert(ns, [
        item('a', 0, { documentId: 'd1', scopes: ['internal'], tags: ['red', 'blue'] }),
        item('b', 1, { documentId: 'd2', scopes: ['external'], tags: ['blue'] }),
        item('c', 2, { documentId: 'd2', scopes: ['internal', 'external'], tags: [], userId: 'user-2' }),
      ]);
      const ids = async (filter: Partial<Record<keyof VectorMetadata, string>>) =>
        (await index.query(ns, { vector: axisVector(dimension, 0), topK: 10, filter })).map((match) => match.id).sort();
      await check(async () => {
        expect(await ids({ documentId: 'd2' })).toEqual(['b', 'c']);
        expect(await ids({ scopes: 'internal' })).toEqual(['a', 'c']);
        expect(await ids({ tags: 'blue' })).toEqual(['a', 'b']);
        expect(await ids({ scopes: 'external', userId: 'user-1' })).toEqual(['b']);
        expect(await ids({ tags: 'green' })).toEqual([]);
      });
    });

    it('returns no match as confirmed before anything was confirmed (an index without confirm: never)', async () => {
      const index = await factory();
      const ns = namespace();
      await index.upsert(ns, [{ ...item('a', 0), text: 'alpha text' }]);
      await check(async () => {
        const matches = await index.query(ns, { vector: axisVector(dimension, 0), topK: 1 });
        expect(matches.map((match) => match.id)).toEqual(['a']);
        expect(matches[0]?.confirmed).toBeUndefined();
      });
    });

    it('pages through every id exactly once', async () => {
      const index = await factory();
      const ns = namespace();
      const stored = Array.from({ length: 23 }, (_, i) => item(`id-${String(i).padStart(2, '0')}`, i));
      await index.upsert(ns, stored);
      await index.delete(ns, ['id-05']);
      await check(async () => {
        const seen: string[] = [];
        let cursor: string | undefined;
        do {
          const page = await index.listIds(ns, { limit: 5, ...(cursor === undefined ? {} : { cursor }) });
          expect(page.items.length).toBeLessThanOrEqual(5);
          seen.push(...page.items);
          cursor = page.nextCursor ?? undefined;
        } while (cursor !== undefined);
        const expected = stored.map((entry) => entry.id).filter((id) => id !== 'id-05');
        expect(seen.sort()).toEqual(expected);
      });
    });
  });
}
