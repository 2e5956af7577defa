import { describe, expect, it } from 'vitest';
import { generator } from './hybrid-oracle.ts';
import { MAX_LINKS, NO_LINK, SlotChains } from './slot-chains.ts';
import { EPOCH_BITS, EPOCH_MASK } from './term-postings.ts';

/** Which of `slot`'s links a query follows, from their definition: the first link to its entry, named back. */
function lendingByDefinition(chains: SlotChains, slot: number, epochs: Uint8Array): number {
  const self = slot * (EPOCH_MASK + 1) + (epochs[slot] as number);
  let bits = 0;
  for (let j = 0; j < MAX_LINKS; j++) {
    const link = chains.links[slot * MAX_LINKS + j] as number;
    if (link === NO_LINK || chains.positionOf(slot, link) !== j) continue;
    if (chains.positionOf(link >>> EPOCH_BITS, self) >= 0) bits |= 1 << j;
  }
  return bits;
}

describe('slot chains', () => {
  it("keeps each slot's lending links as both ends change: chains written, cleared, slots reused at new epochs", () => {
    const random = generator(7);
    const chains = new SlotChains();
    const epochs = new Uint8Array(64);
    const slots = 40;
    const pick = () => Math.floor(random() * slots);
    let followed = 0;
    for (let step = 0; step < 600; step++) {
      const slot = pick();
      if (random() < 0.3) {
        // Removed: its chain cleared, then its epoch moves on (LexicalPostings.remove).
        chains.clear(slot, epochs);
        epochs[slot] = ((epochs[slot] as number) + 1) & EPOCH_MASK;
      } else {
        // Written with neighbours near it or anywhere (a reused slot), sometimes one of them twice.
        const links = Array.from({ length: 1 + Math.floor(random() * MAX_LINKS) }, () =>
          random() < 0.7 ? Math.min(slots - 1, Math.max(0, slot + Math.floor(random() * 5) - 2)) : pick(),
        ).filter((other) => other !== slot);
        chains.set(slot, { links, weights: links.map(() => 0.45), borrows: true }, epochs);
      }
      for (let other = 0; other < slots; other++) {
        const expected = lendingByDefinition(chains, other, epochs);
        expect(chains.lending[other], `slot ${other} after step ${step}`).toBe(expected);
        if (expected !== 0) followed++;
      }
    }
    // The test reaches links that both ends name (most steps leave some).
    expect(followed).toBeGreaterThan(1000);
  });
});
