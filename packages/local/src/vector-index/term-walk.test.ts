import { saturatedFrequencyAt } from '@memgate/core';
import { describe, expect, it } from 'vitest';
import { FrequencyTable } from './frequency-table.ts';
import { LexicalSweep } from './lexical-sweep.ts';
import { ownCode, SlotChains } from './slot-chains.ts';
import { TermPostings } from './term-postings.ts';
import { TermWalk, type WalkContext } from './term-walk.ts';

/**
 * Six chunks of one add, each SPLIT and borrowing from its neighbours (two on each side, 0.45 before, 0.15 after, as
 * chunkTerms weighs them), and slot 6 written without a chain: its neighbours' terms stored (a negative posting).
 * `at` places chunk i at a slot of its own (reused slots: its neighbours may be far apart, in any order).
 */
function namespace(at = (chunk: number) => chunk) {
  const table = new FrequencyTable();
  const chains = new SlotChains();
  const epochs = new Uint8Array(1024);
  const lengths = new Float64Array(1024);
  for (let chunk = 0; chunk < 7; chunk++) lengths[at(chunk)] = 5;
  for (let chunk = 0; chunk < 6; chunk++) {
    const links = [chunk - 2, chunk - 1, chunk + 1, chunk + 2].filter((other) => other >= 0 && other < 6);
    const weights = links.map((other) => (other < chunk ? 0.45 : 0.15));
    chains.set(at(chunk), { links: links.map(at), weights, borrows: true }, epochs);
  }
  chains.kinds[at(0)] = 0; // no longer SPLIT, as a chunk written again alone: it neither lends nor borrows
  const list = (postings: [chunk: number, value: number][]) => {
    const posting = new TermPostings(0);
    for (const [chunk, value] of postings) posting.append(at(chunk), epochs[at(chunk)] as number, value, table);
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

/**
 * Each slot a sweep finishes, with its frequency of each list's term (undefined: it holds none of it). Each slot's
 * `sumOf` (what a scorer sums, from one function for up to 32 terms) must be the sum of those frequencies' saturations
 * in term order, to the bit, and its own terms those with a positive frequency.
 */
function swept(lists: TermPostings[], context: WalkContext) {
  const found: (number | undefined)[][] = [];
  const shares = Float64Array.from(lists, (_, t) => 1 / (t + 2));
  new LexicalSweep().run(lists, context, (slot, sweep) => {
    const norm = 0.9 + slot / 1000;
    const sum = sweep.sumOf(slot, context, shares, norm);
    const ownTerms = sweep.ownTerms;
    sweep.frequenciesOf(slot, context);
    const frequencies: (number | undefined)[] = lists.map(() => undefined);
    let expected = 0;
    let owned = 0;
    for (let i = 0; i < sweep.count; i++) {
      const frequency = sweep.frequencies[i] as number;
      frequencies[sweep.terms[i] as number] = frequency;
      expected =
        expected + (shares[sweep.terms[i] as number] as number) * saturatedFrequencyAt(Math.abs(frequency), norm);
      if (frequency > 0) owned++;
    }
    expect(sum).toBe(expected);
    expect(ownTerms).toBe(owned);
    found.push([slot, ...frequencies]);
  });
  return found;
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
    // A query's sweep of both lists: the slots owning either term, in slot order, each with the walks' frequencies.
    expect(swept([tide, harbour], context)).toEqual(
      [0, 1, 2, 4, 6].map((slot) => [slot, ...full.map((walked) => walked.find(([at]) => at === slot)?.[1])]),
    );
    expect(full[1]).toContainEqual([1, -(0.15 + 0.15 + 0.15)]);
  });

  it('sweeps neighbours lent from far away (reused slots) and lists appended out of slot order as the walks do', () => {
    // Chunk i at slot 40 * (6 - i): neighbours a block or two apart, in falling slot order, lists appended unsorted.
    const place = (chunk: number) => 40 * (6 - chunk);
    const { context, tide, harbour } = namespace(place);
    const walk = new TermWalk();
    const full = [tide, harbour].map((list) => {
      walk.walk(list, context);
      return met(walk);
    });
    const owners = [0, 1, 2, 4, 6].map(place).sort((a, b) => a - b);
    expect(swept([tide, harbour], context)).toEqual(
      owners.map((slot) => [slot, ...full.map((walked) => walked.find(([at]) => at === slot)?.[1])]),
    );
    // More terms than a 32-bit word of term bits: the same lists read 20 times each, the same frequencies.
    const many = Array.from({ length: 40 }, (_, t) => (t % 2 === 0 ? tide : harbour));
    expect(swept(many, context)).toEqual(
      owners.map((slot) => [slot, ...many.map((_, t) => full[t % 2]?.find(([at]) => at === slot)?.[1])]),
    );
    // Put in slot order by the sweep; a walk still gives the same frequencies.
    expect(tide.sortedUpTo).toBe(tide.size);
    walk.walk(tide, context);
    expect(met(walk).sort(([a], [b]) => (a as number) - (b as number))).toEqual(
      [...(full[0] as number[][])].sort(([a], [b]) => (a as number) - (b as number)),
    );
  });
});
