import { randomUUID } from 'node:crypto';
import type { TenantKey, VectorIndex, VectorItem } from '@memgate/core';
import { describe, expect, it } from 'vitest';
import { axisVector, metadataFor } from './vector-index.ts';

/**
 * The optional capability of VectorIndex that lets search show a match without reading its rows
 * (`confirm`, VectorMatch.confirmed), run by every adapter that has it (the embedded index, the in-memory double).
 * Pinecone has not: vectorIndexConformance checks it never returns a match as confirmed.
 */
export function confirmingIndexConformance(name: string, factory: () => VectorIndex | Promise<VectorIndex>): void {
  const dimension = 16;
  const namespace = (): TenantKey => `user:confirming-${randomUUID()}`;
  const item = (id: string, axis: number, text: string | undefined): VectorItem => ({
    id,
    values: axisVector(dimension, axis),
    metadata: metadataFor(),
    ...(text === undefined ? {} : { text }),
  });
  const confirmedOf = async (index: VectorIndex, ns: TenantKey) => {
    const matches = await index.query(ns, { vector: axisVector(dimension, 0), topK: 10 });
    return Object.fromEntries(matches.map((match) => [match.id, match.confirmed]));
  };
  const open = async () => {
    const index = await factory();
    if (!index.confirm) throw new Error(`${name} has no confirm`);
    return index as VectorIndex & Required<Pick<VectorIndex, 'confirm'>>;
  };

  describe(`VectorIndex confirmations: ${name}`, () => {
    it('returns a match confirmed at the last tag, with the text it holds; others not', async () => {
      const index = await open();
      const ns = namespace();
      await index.upsert(ns, [item('a', 0, 'alpha text'), item('b', 1, 'beta text')]);
      expect(await confirmedOf(index, ns)).toEqual({ a: undefined, b: undefined });
      await index.confirm(ns, [{ id: 'a', text: 'alpha text', tag: 'e1:3' }]);
      expect(await confirmedOf(index, ns)).toEqual({ a: { text: 'alpha text', tag: 'e1:3' }, b: undefined });
      await index.confirm(ns, [{ id: 'a', text: 'alpha text', tag: 'e1:4' }]);
      expect((await confirmedOf(index, ns)).a).toEqual({ text: 'alpha text', tag: 'e1:4' });
    });

    it('ignores a confirmation of another text, of an id it does not hold, or of an item upserted without text', async () => {
      const index = await open();
      const ns = namespace();
      await index.upsert(ns, [item('a', 0, 'alpha text'), item('b', 1, undefined)]);
      await index.confirm(ns, [
        { id: 'a', text: 'older alpha text', tag: 'e1:1' },
        { id: 'b', text: '', tag: 'e1:1' },
        { id: 'missing', text: 'x', tag: 'e1:1' },
      ]);
      expect(await confirmedOf(index, ns)).toEqual({ a: undefined, b: undefined });
      await index.confirm(namespace(), [{ id: 'a', text: 'alpha text', tag: 'e1:1' }]); // a namespace never written
    });

    it('clears a confirmation when the id is upserted again, even with the same text, and when it is deleted', async () => {
      const index = await open();
      const ns = namespace();
      await index.upsert(ns, [item('a', 0, 'alpha text'), item('b', 1, 'beta text')]);
      await index.confirm(ns, [
        { id: 'a', text: 'alpha text', tag: 'e1:1' },
        { id: 'b', text: 'beta text', tag: 'e1:1' },
      ]);
      await index.upsert(ns, [item('a', 0, 'alpha text')]);
      await index.delete(ns, ['b']);
      await index.upsert(ns, [item('b', 1, 'beta text')]);
      expect(await confirmedOf(index, ns)).toEqual({ a: undefined, b: undefined });
      // New text: only a confirmation of the new text applies.
      await index.upsert(ns, [item('a', 0, 'alpha, rewritten')]);
      await index.confirm(ns, [{ id: 'a', text: 'alpha text', tag: 'e1:2' }]);
      expect((await confirmedOf(index, ns)).a).toBeUndefined();
      await index.confirm(ns, [{ id: 'a', text: 'alpha, rewritten', tag: 'e1:2' }]);
      expect((await confirmedOf(index, ns)).a).toEqual({ text: 'alpha, rewritten', tag: 'e1:2' });
    });

    it('keeps namespaces apart: a confirmation in one never confirms the same id in another', async () => {
      const index = await open();
      const [one, two] = [namespace(), namespace()];
      await index.upsert(one, [item('a', 0, 'same text')]);
      await index.upsert(two, [item('a', 0, 'same text')]);
      await index.confirm(one, [{ id: 'a', text: 'same text', tag: 'e1:1' }]);
      expect((await confirmedOf(index, one)).a).toEqual({ text: 'same text', tag: 'e1:1' });
      expect((await confirmedOf(index, two)).a).toBeUndefined();
    });
  });
}
