import { describe, expect, it } from 'vitest';
import { TermTable } from './term-table.ts';

/** A seeded generator, so every run replays the same lists. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32;
  };
}

describe('TermTable', () => {
  it('ranks ids in ascending order and sums each one occurrence at a time, ids sharing their low bits included', () => {
    const random = generator(5);
    // Ids above 2^31 (heap numbers), and ids equal in their low 16 bits (the same bucket of a small table).
    const pool = [
      ...Array.from({ length: 60 }, () => Math.floor(random() * 2 ** 32)),
      ...Array.from({ length: 20 }, (_, i) => (i + 1) * 2 ** 16),
      0,
      2 ** 32 - 1,
    ];
    for (let round = 0; round < 50; round++) {
      const lists = Array.from({ length: 1 + Math.floor(random() * 6) }, () =>
        Array.from({ length: Math.floor(random() * 30) }, () => pool[Math.floor(random() * pool.length)] as number),
      );
      const table = TermTable.of(lists);
      const distinct = [...new Set(lists.flat())].sort((a, b) => a - b);
      for (const list of lists) {
        expect([...table.ranks(list)]).toEqual(list.map((id) => distinct.indexOf(id)));
      }
      // Two lists summed with weights, as chunkTerms does for a chunk and a neighbour.
      const [first = [], second = []] = lists;
      const expected = new Map<number, number>();
      for (const [list, weight] of [
        [first, 1],
        [second, 0.45],
      ] as const) {
        for (const id of list) expected.set(id, (expected.get(id) ?? 0) + weight);
      }
      // What `clear` forgets leaves nothing behind.
      table.add(table.ranks(second), 2);
      expect(table.clear()).toBe(new Set(second).size);
      expect(table.empty).toBe(true);
      table.add(table.ranks(first), 1);
      table.add(table.ranks(second), 0.45);
      const indices = [...expected.keys()].sort((a, b) => a - b);
      expect(table.take()).toEqual({ indices, values: indices.map((id) => expected.get(id)) });
      expect(table.empty).toBe(true);
    }
  });
});
