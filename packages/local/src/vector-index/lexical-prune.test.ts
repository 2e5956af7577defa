import {
  chunkTerms,
  neighbourOffsets,
  queryTermFrequencies,
  speakerTermIdsOf,
  type VectorItem,
  type VectorMetadata,
} from '@memgate/core';
import { describe, expect, it } from 'vitest';
import { metadataFor } from '../../../../test/conformance/vector-index.ts';
import { generator } from './hybrid-oracle.ts';
import { NamespaceStore } from './store.ts';

const DIMENSION = 4;

/**
 * A query that keeps only its best matches (hybrid.ts without a graph) skips blocks of 32 slots, and owners, whose
 * bound cannot reach the best so far (lexical-sweep.ts, lexical-score.ts): every slot scoring at least the kept-th
 * best must still be matched with its exact score, through inserts, deletes and re-adds that reuse slots inside one
 * block (their links then reach past the 2 slots on each side, or to another block).
 */
describe('lexical match keeping its best: the same best as the full match', () => {
  it('matches every slot at or above the kept-th best, to the bit, as the store changes', () => {
    const random = generator(23);
    const vocabulary = Array.from({ length: 60 }, (_, i) => `word${i.toString(36)}z`);
    const word = () => vocabulary[Math.floor(vocabulary.length * random() ** 2)] as string;
    const text = () => {
      const words = Array.from({ length: 3 + Math.floor(random() * 25) }, word).join(' ');
      return random() < 0.3 ? `Ann: ${words}` : words;
    };
    const store = new NamespaceStore(DIMENSION, undefined, false);
    const metadata: VectorMetadata = metadataFor({ documentId: 'doc', scopes: ['internal'] });
    const ids: string[] = [];
    let batch = 0;
    const add = (count: number, replace = 0) => {
      const texts = Array.from({ length: count }, text);
      const terms = chunkTerms(texts);
      const items: VectorItem[] = texts.map((_, i) => {
        const reused = i < replace && ids.length > 0;
        const id = reused ? (ids[Math.floor(random() * ids.length)] as string) : `chunk-${batch}-${i}`;
        if (!reused) ids.push(id);
        return { id, values: Float32Array.from({ length: DIMENSION }, random), metadata, ...terms[i] };
      });
      const unique = new Set(items.map((item) => item.id)).size === items.length;
      if (unique && random() < 0.85) {
        neighbourOffsets(texts.length).forEach(({ offsets, weights }, i) => {
          const neighbours = offsets.map((offset) => (items[i + offset] as VectorItem).id);
          (items[i] as VectorItem).chain = { neighbours, weights, unlent: speakerTermIdsOf(texts[i] as string) };
        });
      }
      store.upsert(unique ? items : items.slice(replace));
      batch++;
    };
    const remove = (count: number) => {
      const gone = Array.from({ length: count }, () => ids.splice(Math.floor(random() * ids.length), 1)[0]);
      store.delete(gone as string[]);
    };
    let compared = 0;
    let pruned = 0;
    const compare = () => {
      for (let q = 0; q < 6; q++) {
        const terms = queryTermFrequencies(Array.from({ length: 1 + Math.floor(random() * 5) }, word).join(' '));
        const accepts = q % 3 === 2 ? (slot: number) => slot % 3 !== 0 : undefined;
        const full = store.lexical.score(terms, accepts);
        const all = new Map(Array.from(full.slots.subarray(0, full.count), (slot) => [slot, full.scores[slot]]));
        // Only live slots match (the sweep once finished a block -1 of the previous query's leftovers).
        for (const slot of full.slots.subarray(0, full.count)) expect(store.slots[slot]).toBeDefined();
        for (const keep of [1, 4, 20]) {
          const kept = store.lexical.score(terms, accepts, keep);
          const found = new Map(Array.from(kept.slots.subarray(0, kept.count), (slot) => [slot, kept.scores[slot]]));
          const floor = [...all.values()].sort((a, b) => (b as number) - (a as number))[keep - 1] ?? 0;
          for (const [slot, score] of all)
            if ((score as number) >= (floor as number)) expect(found.get(slot)).toBe(score);
          for (const [slot, score] of found) expect(all.get(slot)).toBe(score);
          if (kept.pruned) pruned++;
          else expect(found.size).toBe(all.size);
          compared++;
        }
      }
    };
    // Slots in order first, then deletes and re-adds that reuse them (the free slots come back last freed first).
    for (let i = 0; i < 12; i++) add(10 + Math.floor(random() * 40));
    compare();
    for (let round = 0; round < 25; round++) {
      remove(1 + Math.floor(random() * 12));
      if (round % 5 === 4) store.delete(ids.splice(-3, 3)); // the slots before the end: a gap inside one block
      add(1 + Math.floor(random() * 20), round % 3 === 0 ? 2 : 0);
      compare();
    }
    expect(compared).toBe(26 * 6 * 3);
    // The test reaches the pruning: a quarter of the keeping queries skip some slots.
    expect(pruned).toBeGreaterThan(compared / 5);
  });

  it('bounds a slot by what a lender beyond its 2 neighbours, or beyond the next block, lends it', () => {
    const store = new NamespaceStore(DIMENSION, undefined, false);
    const metadata: VectorMetadata = metadataFor({ documentId: 'doc', scopes: ['internal'] });
    let batch = 0;
    const add = (texts: string[]) => {
      const terms = chunkTerms(texts);
      const items: VectorItem[] = texts.map((_, i) => ({
        id: `chunk-${batch}-${i}`,
        values: Float32Array.from({ length: DIMENSION }, (_, d) => d + i),
        metadata,
        ...terms[i],
      }));
      neighbourOffsets(texts.length).forEach(({ offsets, weights }, i) => {
        const neighbours = offsets.map((offset) => (items[i + offset] as VectorItem).id);
        (items[i] as VectorItem).chain = { neighbours, weights, unlent: [] };
      });
      store.upsert(items);
      batch++;
      return items.map((item) => item.id);
    };
    // 200 chunks of a few lengths holding the query's word once (slots 0-199): their neighbours lend it too.
    const fillers = add(Array.from({ length: 200 }, (_, i) => `zeta filler${i} ${'quartz '.repeat(i % 7)}`));
    const query = queryTermFrequencies('zeta');
    const expectSameBest = () => {
      const full = store.lexical.score(query, undefined);
      const all = new Map(Array.from(full.slots.subarray(0, full.count), (slot) => [slot, full.scores[slot]]));
      const floor = [...all.values()].sort((a, b) => (b as number) - (a as number))[3] as number;
      const kept = store.lexical.score(query, undefined, 4);
      expect(kept.pruned).toBe(true);
      const found = new Map(Array.from(kept.slots.subarray(0, kept.count), (slot) => [slot, kept.scores[slot]]));
      for (const [slot, score] of all) if ((score as number) >= floor) expect(found.get(slot)).toBe(score);
    };
    // A lender 4 slots from its borrower, in the same block (slots 124 and 120, freed last first).
    store.delete([fillers[120] as string, fillers[124] as string]);
    add([`${'zeta '.repeat(30)}lender`, 'zeta borrower']);
    expectSameBest();
    // A lender 5 blocks after its borrower (slot 40 freed, the next new slot is 200).
    store.delete([fillers[40] as string]);
    add([`zeta borrower ${'quartz '.repeat(12)}`, `${'zeta '.repeat(30)}lender`]);
    expectSameBest();
  });
});
