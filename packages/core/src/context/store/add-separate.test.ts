import { describe, expect, it } from 'vitest';
import { createMemoryIndex, createMemoryRepository } from '../../../../../test/support/memory-ports.ts';
import type { Principal } from '../../auth/index.ts';
import { textWords } from '../lexical/index.ts';
import type { Embedder, VectorItem } from '../ports.ts';
import { createContextStore } from './index.ts';

const embedder: Embedder = {
  id: 'constant:4',
  dimension: 4,
  embed: async (texts) => texts.map(() => Float32Array.of(1, 0, 0, 0)),
};
const alice: Principal = { userId: 'alice', orgs: [], scopes: new Set(['context:write']) };

/** A store whose index keeps every upserted item by id: what the lexical half of search will read. */
function storeRecordingVectors() {
  const clock = { now: () => new Date('2026-01-01T00:00:00Z') };
  const { repository } = createMemoryRepository(clock);
  const { index } = createMemoryIndex();
  const upserted = new Map<string, VectorItem>();
  const recording = {
    ...index,
    async upsert(namespace: Parameters<typeof index.upsert>[0], items: readonly VectorItem[]) {
      for (const item of items) upserted.set(item.id, item);
      return index.upsert(namespace, items);
    },
  };
  return { store: createContextStore({ repository, index: recording, embedder, clock }), upserted };
}

const ferry = { content: 'User: Which pier does the night ferry use?\n\nAssistant: Pier nine.', fileName: 'a.txt' };
const invoice = { content: 'User: Was the invoice paid?\n\nAssistant: Yes, on Monday.', fileName: 'b.txt' };

const termsById = (items: Map<string, VectorItem>) =>
  Object.fromEntries([...items].map(([id, item]) => [id, { terms: item.terms, contextTerms: item.contextTerms }]));

describe('add with separateDocuments (captured exchanges stored together)', () => {
  it('gives each chunk the lexical context it would have had if its document were added alone', async () => {
    const alone = storeRecordingVectors();
    await alone.store.add(alice, { documents: [ferry] });
    await alone.store.add(alice, { documents: [invoice] });
    const together = storeRecordingVectors();
    await together.store.add(alice, { documents: [ferry, invoice], separateDocuments: true });
    expect(termsById(together.upserted)).toEqual(termsById(alone.upserted));
  });

  it('without it, a document lends its words to the next one (the order of one add is one text)', async () => {
    const alone = storeRecordingVectors();
    await alone.store.add(alice, { documents: [ferry] });
    await alone.store.add(alice, { documents: [invoice] });
    const together = storeRecordingVectors();
    await together.store.add(alice, { documents: [ferry, invoice] });
    expect(termsById(together.upserted)).not.toEqual(termsById(alone.upserted));
  });

  it.each([true, false])(
    'gives each chunk its chain: the neighbours whose terms, weighted in order, make its contextTerms (separate: %s)',
    async (separateDocuments) => {
      const { store, upserted } = storeRecordingVectors();
      const museum = {
        content: 'Caroline: The museum opens at nine.\n\nMelanie: Then we go at ten.',
        fileName: 'c.txt',
      };
      const harbour = { content: 'User: Where is the harbour museum?\n\nAssistant: By pier nine.', fileName: 'd.txt' };
      await store.add(alice, { documents: [ferry, invoice, museum, harbour], separateDocuments });
      expect(upserted.size).toBeGreaterThanOrEqual(4);
      for (const item of upserted.values()) {
        const chain = item.chain as NonNullable<VectorItem['chain']>;
        expect(chain.weights).toHaveLength(chain.neighbours.length);
        const sums = new Map<number, number>();
        chain.neighbours.forEach((id, k) => {
          const neighbour = upserted.get(id) as VectorItem;
          if (separateDocuments) expect(neighbour.metadata.documentId).toBe(item.metadata.documentId);
          const unlent = (neighbour.chain as NonNullable<VectorItem['chain']>).unlent;
          neighbour.terms?.indices.forEach((term, i) => {
            const lent = (neighbour.terms?.values[i] as number) - unlent.filter((other) => other === term).length;
            let sum = sums.get(term) ?? 0;
            for (let r = 0; r < lent; r++) sum += chain.weights[k] as number;
            if (lent > 0) sums.set(term, sum);
          });
        });
        const context = item.contextTerms ?? { indices: [], values: [] };
        expect(new Map(context.indices.map((term, i) => [term, context.values[i]]))).toEqual(sums);
      }
    },
  );
});

describe('add: each chunk is tokenised once', () => {
  it("gives an embedder that reads textWords each chunk's words, in order, and takes its vectors", async () => {
    const calls: { texts: readonly string[]; words: readonly (readonly string[])[] }[] = [];
    const readsWords: Embedder = {
      ...embedder,
      embed: () => Promise.reject(new Error('embed: the add has read the words already')),
      embedWords: async (texts, words) => {
        calls.push({ texts, words });
        return texts.map((_, i) => Float32Array.of(0, i + 1, 0, 0));
      },
    };
    const clock = { now: () => new Date('2026-01-01T00:00:00Z') };
    const { repository } = createMemoryRepository(clock);
    const { index } = createMemoryIndex();
    const upserted: VectorItem[] = [];
    const upsert: typeof index.upsert = async (namespace, items) => {
      upserted.push(...items);
      return index.upsert(namespace, items);
    };
    const store = createContextStore({ repository, index: { ...index, upsert }, embedder: readsWords, clock });
    await store.add(alice, { documents: [ferry, invoice], separateDocuments: true });
    expect(calls).toHaveLength(1);
    const { texts, words } = calls[0] as (typeof calls)[number];
    expect(texts.length).toBeGreaterThan(1);
    expect(words).toEqual(texts.map(textWords));
    expect(upserted.map((item) => item.values[1])).toEqual(texts.map((_, i) => i + 1));
  });
});
