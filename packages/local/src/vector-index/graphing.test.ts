import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { VectorItem, VectorQuery } from '@memgate/core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { metadataFor } from '../../../../test/conformance/vector-index.ts';
import { BackgroundGraphing } from './graphing.ts';
import { searchNamespace } from './hybrid.ts';
import { NamespaceStore } from './store.ts';
import { closeOpenedIndexes, freshDir, openIndex, randomVectors } from './test-indexes.ts';

afterEach(closeOpenedIndexes);

const DIMENSION = 32;
const items = (prefix: string, vectors: Float32Array[]): VectorItem[] =>
  vectors.map((values, i) => ({
    id: `${prefix}${i}`,
    values,
    metadata: metadataFor({ documentId: i % 10 === 0 ? 'rare' : 'common' }),
  }));
const ids = (store: NamespaceStore, query: VectorQuery) => searchNamespace(store, query).map((match) => match.id);

/** The ids of the `topK` vectors nearest `query` among `candidates`, by exact cosine. */
function exactTop(candidates: readonly VectorItem[], query: Float32Array, topK: number): string[] {
  const cosine = (values: Float32Array) => values.reduce((sum, value, i) => sum + value * (query[i] as number), 0);
  return [...candidates]
    .sort((a, b) => cosine(b.values) - cosine(a.values))
    .slice(0, topK)
    .map((item) => item.id);
}

/** Lets the event loop run `turns` times (setImmediate callbacks scheduled earlier run first). */
const turnsOfTheLoop = async (turns: number) => {
  for (let i = 0; i < turns; i++) await new Promise((resolve) => setImmediate(resolve));
};

describe('deferred graph insertion (store)', () => {
  it('finds vectors outside the graph exactly, merged with the graph by score', () => {
    const store = new NamespaceStore(DIMENSION);
    const graphed = items('g', randomVectors(1500, DIMENSION, 3));
    store.upsert(graphed);
    store.insertIntoGraph(graphed.length);
    const waiting = items('w', randomVectors(300, DIMENSION, 5));
    store.upsert(waiting);
    expect(store.graph?.size).toBe(1500);
    expect(store.graph?.ungraphed.size).toBe(300);
    for (const query of randomVectors(20, DIMENSION, 9)) {
      const found = ids(store, { vector: query, topK: 10 });
      const exact = exactTop([...graphed, ...waiting], query, 10);
      // Every vector of the exact top that waits outside the graph is found (the graph may miss one of its own).
      expect(found).toEqual(expect.arrayContaining(exact.filter((id) => id.startsWith('w'))));
      expect(found).toHaveLength(10);
      // A selective filter takes the exact path and a broad one the graph: both see the waiting vectors.
      const rare = [...graphed, ...waiting].filter((item) => item.metadata.documentId === 'rare');
      expect(ids(store, { vector: query, topK: 5, filter: { documentId: 'rare' } })).toEqual(exactTop(rare, query, 5));
      const common = ids(store, { vector: query, topK: 10, filter: { documentId: 'common' } });
      expect(common.every((id) => Number(id.slice(1)) % 10 !== 0)).toBe(true);
    }
  });

  it('deletes and replaces vectors outside the graph and in it', () => {
    const store = new NamespaceStore(DIMENSION);
    const [a, b, c, d] = randomVectors(4, DIMENSION, 13) as [Float32Array, Float32Array, Float32Array, Float32Array];
    store.upsert([{ id: 'x', values: a, metadata: metadataFor() }]);
    store.insertIntoGraph(1);
    store.upsert([
      { id: 'x', values: b, metadata: metadataFor() }, // x leaves the graph for its new vector
      { id: 'y', values: c, metadata: metadataFor() },
      { id: 'z', values: d, metadata: metadataFor() },
    ]);
    store.delete(['y']); // never graphed
    expect(store.graph?.size).toBe(0);
    expect([...(store.graph?.ungraphed ?? [])].map((slot) => store.slots[slot]?.id)).toEqual(['x', 'z']);
    const best = (vector: Float32Array) => searchNamespace(store, { vector, topK: 1 })[0];
    expect(best(b)).toMatchObject({ id: 'x', score: expect.closeTo(1, 5) });
    expect(ids(store, { vector: c, topK: 5 }).sort()).toEqual(['x', 'z']);
    store.insertIntoGraph(10);
    expect(store.graph?.size).toBe(2);
    expect(best(b)).toMatchObject({ id: 'x', score: expect.closeTo(1, 5) });
    expect(ids(store, { vector: c, topK: 5 }).sort()).toEqual(['x', 'z']);
  });
});

describe('background graph insertion', () => {
  it('holds a write until at most maxUngraphed vectors wait, yielding to the event loop meanwhile', async () => {
    const store = new NamespaceStore(DIMENSION);
    const graphing = new BackgroundGraphing({ maxUngraphed: 100, background: true });
    // Enough vectors that inserting them down to the bound takes several slices even on a fast machine.
    store.upsert(items('v', randomVectors(2000, DIMENSION)));
    let turns = 0;
    let counting = true;
    const count = () => {
      turns++;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    await graphing.afterWrite(store);
    counting = false;
    expect(store.graph?.ungraphed.size).toBeLessThanOrEqual(100);
    expect(store.graph?.ungraphed.size).toBeGreaterThan(0); // released at the bound, not after all
    expect(turns).toBeGreaterThan(2); // other work ran between the slices
    await graphing.idle();
    expect(store.graph?.ungraphed.size).toBe(0);
    expect(store.graph?.size).toBe(2000);
  });

  it('lets a write under the bound return at once and inserts its vectors once writes pause', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      const store = new NamespaceStore(DIMENSION);
      const graphing = new BackgroundGraphing({ maxUngraphed: 100, background: true });
      store.upsert(items('v', randomVectors(40, DIMENSION)));
      await graphing.afterWrite(store);
      expect(store.graph?.ungraphed.size).toBe(40);
      vi.advanceTimersByTime(20);
      store.upsert(items('w', randomVectors(10, DIMENSION)));
      await graphing.afterWrite(store); // a burst: the graph waits for a pause
      vi.advanceTimersByTime(20);
      await turnsOfTheLoop(5);
      expect(store.graph?.ungraphed.size).toBe(50);
      vi.advanceTimersByTime(10);
      await graphing.idle();
      expect(store.graph?.size).toBe(50);
    } finally {
      vi.useRealTimers();
    }
  });

  it('releases a waiting write when it stops (closing), leaving the rest outside the graph', async () => {
    const store = new NamespaceStore(DIMENSION);
    const graphing = new BackgroundGraphing({ maxUngraphed: 10, background: true });
    store.upsert(items('v', randomVectors(400, DIMENSION)));
    const write = graphing.afterWrite(store);
    graphing.stop();
    await write;
    await turnsOfTheLoop(5);
    expect(store.graph?.ungraphed.size).toBe(400);
  });
});

describe('local vector index: vectors outside the graph', () => {
  const ns = 'user:u1';
  const query = (vector: Float32Array, topK = 10): VectorQuery => ({ vector, topK });

  it('finds a vector as soon as its upsert returns, before any background insertion', async () => {
    const index = await openIndex(freshDir());
    const vectors = randomVectors(50, DIMENSION);
    await index.upsert(ns, items('v', vectors));
    const matches = await index.query(ns, query(vectors[7] as Float32Array, 1)); // same turn of the event loop
    expect(matches[0]).toMatchObject({ id: 'v7', score: expect.closeTo(1, 5) });
  });

  it('keeps vectors outside the graph across a snapshot and a restart, and graphs them after', async () => {
    const dir = freshDir();
    const options = { maxUngraphed: 1000, graphInBackground: false };
    const first = await openIndex(dir, 1, options); // a snapshot after every batch
    const vectors = randomVectors(300, DIMENSION, 21);
    await first.upsert(ns, items('a', vectors.slice(0, 200)));
    await first.delete(ns, ['a3', 'a150']);
    await first.upsert(
      ns,
      items('a', vectors.slice(0, 1)).map((item) => ({ ...item, values: vectors[299] as Float32Array })),
    );
    const queries = randomVectors(8, DIMENSION, 23);
    const before = await Promise.all(queries.map((vector) => first.query(ns, query(vector))));
    await first.close();
    const [nsDir] = readdirSync(dir);
    expect(readdirSync(join(dir, nsDir as string)).some((name) => name.endsWith('.usearch'))).toBe(false);

    const second = await openIndex(dir); // graphs in the background
    expect(await Promise.all(queries.map((vector) => second.query(ns, query(vector))))).toEqual(before);
    await second.idle();
    await second.upsert(ns, items('b', vectors.slice(200)));
    await second.close(); // a graph of 198 vectors and 100 outside it
    const third = await openIndex(dir, undefined, options);
    const all = [...items('a', vectors.slice(0, 200)), ...items('b', vectors.slice(200))].filter(
      (item) => item.id !== 'a3' && item.id !== 'a150' && item.id !== 'a0',
    );
    all.push({ id: 'a0', values: vectors[299] as Float32Array, metadata: metadataFor() });
    for (const vector of queries) {
      expect((await third.query(ns, query(vector, 5))).map((m) => m.id)).toEqual(exactTop(all, vector, 5));
    }
    expect((await third.listIds(ns, { limit: 1000 })).items).toHaveLength(298);
  });

  it('replays a crashed process whose vectors were outside the graph, graphing all but the bound at once', async () => {
    const dir = freshDir();
    const first = await openIndex(dir, undefined, { maxUngraphed: 1000, graphInBackground: false });
    const vectors = randomVectors(400, DIMENSION, 31);
    await first.upsert(ns, items('v', vectors));
    await first.delete(ns, ['v10']);
    // No close: a second process opens the same directory from the journal alone.
    const second = await openIndex(dir, undefined, { maxUngraphed: 50, graphInBackground: false });
    const live = items('v', vectors).filter((item) => item.id !== 'v10');
    for (const vector of randomVectors(5, DIMENSION, 33)) {
      expect((await second.query(ns, query(vector, 5))).map((m) => m.id)).toEqual(exactTop(live, vector, 5));
    }
    expect(await second.query(ns, query(vectors[10] as Float32Array, 1))).not.toMatchObject([{ id: 'v10' }]);
  });

  it('answers a write waiting for the graph when the index closes, and loses none of it', async () => {
    const dir = freshDir();
    const first = await openIndex(dir, undefined, { maxUngraphed: 10 });
    const vectors = randomVectors(500, DIMENSION, 41);
    const write = first.upsert(ns, items('v', vectors));
    await first.close();
    await write;
    const second = await openIndex(dir);
    expect((await second.listIds(ns, { limit: 1000 })).items).toHaveLength(500);
    expect((await second.query(ns, query(vectors[499] as Float32Array, 1)))[0]?.id).toBe('v499');
  });
});
