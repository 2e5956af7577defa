import { describe, expect, it } from 'vitest';
import { generator } from './hybrid-oracle.ts';
import { SlotSet } from './slot-set.ts';

/** Every slot below `bound` for which `test` differs from the set's own membership. */
function disagreements(set: SlotSet, test: (slot: number) => boolean, bound: number): number[] {
  const wrong: number[] = [];
  for (let slot = 0; slot < bound; slot++) if (test(slot) !== set.has(slot)) wrong.push(slot);
  return wrong;
}

describe('SlotSet', () => {
  it("answers each slot's membership as the set does through adds, deletes, growth and a clear", () => {
    const random = generator(5);
    const set = new SlotSet();
    let bound = 256;
    for (let step = 0; step < 400; step++) {
      // Mostly dense (a scope most slots share), now and then a slot far beyond the bitmap built so far.
      const slot = random() < 0.05 ? bound + Math.floor(random() * 512) : Math.floor(random() * bound);
      bound = Math.max(bound, slot + 1);
      if (random() < 0.3) set.delete(slot);
      else set.add(slot);
      if (step % 7 === 0) expect(disagreements(set, set.test(), bound + 64)).toEqual([]);
      if (step === 300) set.clear();
    }
  });

  it('keeps a test taken before later adds and deletes of slots it covers exact', () => {
    const set = new SlotSet(Array.from({ length: 1000 }, (_, slot) => slot));
    const test = set.test();
    set.delete(10);
    set.add(10);
    set.delete(500);
    expect(test(10)).toBe(true);
    expect(test(500)).toBe(false);
    expect(disagreements(set, test, 1100)).toEqual([]);
  });

  it('answers a sparse set (a few slots far apart) too', () => {
    const set = new SlotSet([3, 90_000, 45_000]);
    expect(disagreements(set, set.test(), 100_000)).toEqual([]);
  });
});
