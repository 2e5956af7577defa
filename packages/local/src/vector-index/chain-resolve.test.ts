import { chunkTerms, neighbourOffsets, type SparseValues, speakerTermIdsOf, type VectorItem } from '@memgate/core';
import { describe, expect, it } from 'vitest';
import { resolveChains } from './chain.ts';

/** A seeded generator, so every run replays the same items. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

/**
 * The check as it was first written (a Map of sums per term): the neighbours' own counts, less what they do not
 * lend, summed one occurrence at a time in the chain's order, must be exactly the item's positive contextTerms.
 */
function lentAlikeOracle(item: VectorItem, byId: ReadonlyMap<string, VectorItem>): boolean {
  const chain = item.chain as NonNullable<VectorItem['chain']>;
  const sums = new Map<number, number>();
  chain.neighbours.forEach((id, k) => {
    const neighbour = byId.get(id) as VectorItem;
    const unlent = new Map<number, number>();
    for (const term of neighbour.chain?.unlent ?? []) unlent.set(term, (unlent.get(term) ?? 0) + 1);
    const own = neighbour.terms;
    if (!own) return;
    own.indices.forEach((term, i) => {
      const value = own.values[i] as number;
      if (!(value > 0)) return;
      const lent = value - (unlent.get(term) ?? 0);
      let sum = sums.get(term) ?? 0;
      for (let r = 0; r < lent; r++) sum += chain.weights[k] as number;
      if (lent > 0) sums.set(term, sum);
    });
  });
  const given = item.contextTerms ?? { indices: [], values: [] };
  let held = 0;
  for (let i = 0; i < given.indices.length; i++) {
    const value = given.values[i] as number;
    if (!(value > 0)) continue;
    held++;
    if (sums.get(given.indices[i] as number) !== value) return false;
  }
  return held === sums.size;
}

const random = generator(7);
const vocabulary = Array.from({ length: 40 }, (_, i) => `v${i.toString(36)}x`);
const speakers = ['Ann', 'Bob'];
const text = () => {
  const words = Array.from({ length: Math.floor(random() * 12) }, () => vocabulary[Math.floor(40 * random() ** 2)]);
  return random() < 0.4 ? `${speakers[Math.floor(random() * 2)]}: ${words.join(' ')}` : words.join(' ');
};

/** One way a writer's contextTerms can differ from what its neighbours lend (or none). */
function perturb(sparse: SparseValues | undefined, how: number): SparseValues | undefined {
  if (!sparse || sparse.indices.length === 0) return how === 1 ? { indices: [7], values: [0.45] } : sparse;
  const indices = [...sparse.indices];
  const values = [...sparse.values];
  const at = Math.floor(random() * indices.length);
  if (how === 1) values[at] = (values[at] as number) + 1e-12; // one rounding off
  if (how === 2) indices.splice(at, 1) && values.splice(at, 1); // a term missing
  if (how === 3) values[at] = 0; // a term present but not positive: not held
  if (how === 4) {
    indices.push((indices.at(-1) as number) + 1); // a term no neighbour lends
    values.push(0.15);
  }
  if (how === 5) values[at] = -(values[at] as number);
  return { indices, values };
}

describe('resolveChains: which items borrow their neighbours terms', () => {
  it('borrows exactly when the neighbours lend its contextTerms bit for bit, as the Map-based check decided', () => {
    let borrowed = 0;
    let refused = 0;
    for (let round = 0; round < 300; round++) {
      const count = 1 + Math.floor(random() * 9);
      const texts = Array.from({ length: count }, text);
      const terms = chunkTerms(texts);
      const offsets = neighbourOffsets(count);
      const items: VectorItem[] = texts.map((chunkText, i) => {
        const { offsets: at, weights } = offsets[i] as { offsets: number[]; weights: number[] };
        const how = random() < 0.5 ? 0 : 1 + Math.floor(random() * 5);
        const own = terms[i]?.terms as SparseValues;
        const contextTerms = perturb(terms[i]?.contextTerms, how);
        return {
          id: `c${i}`,
          values: new Float32Array(2),
          metadata: {} as VectorItem['metadata'],
          ...(own.indices.length > 0 ? { terms: own } : {}),
          ...(contextTerms ? { contextTerms } : {}),
          chain: {
            neighbours: at.map((offset) => `c${i + offset}`),
            weights,
            unlent: speakerTermIdsOf(chunkText),
          },
        };
      });
      const byId = new Map(items.map((item) => [item.id, item]));
      const chains = resolveChains(
        items,
        items.map((_, i) => i),
        () => true,
      );
      chains.forEach((chain, i) => {
        const expected = lentAlikeOracle(items[i] as VectorItem, byId);
        expect(chain?.borrows, `round ${round}, item ${i}`).toBe(expected);
        if (expected) borrowed++;
        else refused++;
      });
    }
    expect(borrowed).toBeGreaterThan(200);
    expect(refused).toBeGreaterThan(200);
  });
});
