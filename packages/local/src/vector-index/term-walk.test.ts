import { describe, expect, it } from 'vitest';
import { FrequencyTable } from './frequency-table.ts';
import { ownCode, SlotChains } from './slot-chains.ts';
import { TermPostings } from './term-postings.ts';
import { TermWalk, type WalkContext } from './term-walk.ts';

/**
 * Six chunks of one add, each SPLIT and borrowing from its neighbours (two on each side, 0.45 before, 0.15 after, as
 * chunkTerms weighs them), and slot 6 written without a chain: its neighbours' terms stored (a negative posting).
 */
function namespace() {
  const table = new FrequencyTable();
  const chains = new SlotChains();
  const epochs = new Uint8Array(1024);
  const lengths = new Float64Array(1024).fill(5, 0, 7);
  for (let slot = 0; slot < 6; slot++) {
    const links = [slot - 2, slot - 1, slot + 1, slot + 2].filter((other) => other >= 0 && other < 6);
    chains.set(slot, { links, weights: links.map((other) => (other < slot ? 0.45 : 0.15)), borrows: true }, epochs);
  }
  chains.kinds[0] = 0; // no longer SPLIT, as a chunk written again alone: it neither lends nor borrows
  const list = (postings: [slot: number, value: number][]) => {
    const posting = new TermPostings(0);
    for (const [slot, value] of postings) posting.append(slot, epochs[slot] as number, value, table);
    return posting;
  };
  // "tide": slots 1 and 4 hold it (slot 4 twice, once unlent), slot 6 only through its neighbours.
  const tide = list([
    [1, ownCode(1, 0)],
    [4, ownCode(2, 1)],
    [6, -0.6],
  ]);
  // "harbour": slots 2 and 6 hold it; slot 0 too (not SPLIT: a merged frequency).
  const harbour = list([
    [0, 1.45],
    [2, ownCode(3, 0)],
    [6, 2],
  ]);
  const context: WalkContext = { epochs, lengths, chains, table };
  return { context, tide, harbour };
}

const met = (walk: TermWalk) =>
  Array.from(walk.slots.subarray(0, walk.count), (slot, i) => [slot, walk.frequencies[i] as number]);

describe('term walk', () => {
  it("keeps to slots holding a query term of their own, each with the full walk's frequency to the bit", () => {
    const { context, tide, harbour } = namespace();
    const walk = new TermWalk();
    const full = [tide, harbour].map((list) => {
      walk.walk(list, context);
      return met(walk);
    });
    // Slots 3 and 5 hold "tide" only through their neighbours' postings, slot 6 by its stored sum.
    expect(full[0]).toEqual([
      [1, 1],
      [2, -(0.45 + 0.15)],
      [3, -(0.45 + 0.15)],
      [4, 2],
      [5, -0.45],
      [6, -0.6],
    ]);
    walk.markOwners([[tide], [harbour]], context);
    const owners = [0, 1, 2, 4, 6];
    for (const [i, list] of [tide, harbour].entries()) {
      walk.walk(list, context, false, true);
      expect(met(walk)).toEqual(full[i]?.filter(([slot]) => owners.includes(slot as number)));
    }
    // Marked again, only the new marks count: slot 1 (a "tide" owner) borrows "harbour" from slot 2.
    walk.markOwners([[harbour]], context);
    walk.walk(harbour, context, false, true);
    expect(met(walk)).toEqual([
      [0, 1.45],
      [2, 3],
      [6, 2],
    ]);
    expect(full[1]).toContainEqual([1, -(0.15 + 0.15 + 0.15)]);
  });
});
