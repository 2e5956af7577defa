import { saturatedFrequencyAt } from '@memgate/core';
import { BLOCK_BITS, PostingRing, RING_MASK } from './posting-ring.ts';
import { BORROWS, decodeOwn, MAX_LINKS, SPLIT } from './slot-chains.ts';
import { EPOCH_BITS, EPOCH_MASK, type TermPostings } from './term-postings.ts';
import { addLent, heldFrequency, type WalkContext } from './term-walk.ts';

/** Called for each slot owning a query term, in slot order: `sweep.frequenciesOf` gives its terms' frequencies. */
export type OwnerVisit = (slot: number, sweep: LexicalSweep) => void;

/**
 * Each slot owning one of a query's terms, with its frequency of every query term it holds (own, stored context or
 * lent by its neighbours, term-walk.ts's frequencies to the bit), from the postings ring (posting-ring.ts): `run`
 * visits the owners, and a visit reads what the slot's neighbours lend it from the ring, or from the lists (they are
 * in slot order) for a neighbour further away (a reused slot). Only owners are finished: a slot's score needs a
 * query term of its own, and 3 in 4 of the slots holding a term at 100k chunks hold it only through their neighbours.
 * The frequencies are summed as term-walk.ts sums them: own count, then stored context, then each link's lent
 * occurrences one at a time in link order.
 */
export class LexicalSweep extends PostingRing {
  /** The finished slot's terms (query positions, ascending) and their frequencies: `count` of each. */
  terms = new Int32Array(32);
  frequencies = new Float64Array(32);
  count = 0;
  /** After `sumOf`: the terms the slot holds in its own text. */
  ownTerms = 0;
  /** `sumInto`'s length norm (in) and sum (out). */
  readonly norm = new Float64Array(1);
  readonly sum = new Float64Array(1);
  /** Scratch of the slot being finished: its terms' bits, and each term's neighbours' sum once some link lends it. */
  private mask = new Uint32Array(1);
  /** Of those, the terms some link lends it: `lentSum` holds their sums. */
  private lentMask = new Uint32Array(1);
  private lentSum = new Float64Array(32);

  protected override prepare(lists: TermPostings[]): void {
    super.prepare(lists);
    if (this.terms.length < lists.length) {
      const size = Math.max(lists.length, this.terms.length * 2);
      this.terms = new Int32Array(size);
      this.frequencies = new Float64Array(size);
      this.lentSum = new Float64Array(size);
    }
    if (this.mask.length < this.words) {
      this.mask = new Uint32Array(this.words);
      this.lentMask = new Uint32Array(this.words);
    }
  }

  /** `slot`'s frequency of each query term it holds, into `terms` and `frequencies` (ascending terms). */
  frequenciesOf(slot: number, context: WalkContext): void {
    this.borrow(slot, context);
    const { termCount, words, mask, lentMask, lentSum, own, stored, held } = this;
    const r = slot & RING_MASK;
    let count = 0;
    for (let w = 0; w < words; w++) {
      let bits = mask[w] as number;
      while (bits !== 0) {
        const low = bits & -bits;
        bits ^= low;
        const t = w * 32 + (31 - Math.clz32(low));
        const at = r * termCount + t;
        const has = ((held[r * words + w] as number) & low) !== 0;
        const mine = has ? (own[at] as number) : 0;
        const lent = ((lentMask[w] as number) & low) !== 0;
        const neighbours = lent ? (lentSum[t] as number) : has ? (stored[at] as number) : 0;
        this.terms[count] = t;
        this.frequencies[count++] = heldFrequency(mine, neighbours);
      }
    }
    this.count = count;
  }

  /**
   * `slot`'s BM25+ sum over the query terms it holds (lexical-score.ts): in ascending terms, each term's `shares`
   * times its saturated frequency at `norm`, the sum a scorer makes of `frequenciesOf`, without writing them out.
   * `ownTerms` is then the count of terms it holds in its own text.
   */
  sumOf(slot: number, context: WalkContext, shares: Float64Array, norm: number): number {
    this.norm[0] = norm;
    this.sumInto(slot, context, shares);
    return this.sum[0] as number;
  }

  /**
   * `sumOf` at the length norm in `norm[0]`, into `sum[0]`: a double passed to or returned from a call that is not
   * inlined is boxed, and a query at 100k chunks finishes ~30,000 owners (two 16-byte boxes each: 0.7 MB of
   * garbage a query, the most any part of a search allocated).
   */
  sumInto(slot: number, context: WalkContext, shares: Float64Array): void {
    if (this.words === 1) {
      this.sumOfFew(slot, context, shares);
      return;
    }
    const norm = this.norm[0] as number;
    this.frequenciesOf(slot, context);
    let sum = 0;
    let ownTerms = 0;
    for (let i = 0; i < this.count; i++) {
      const frequency = this.frequencies[i] as number;
      if (frequency > 0) ownTerms++;
      const share = shares[this.terms[i] as number] as number;
      sum = sum + share * saturatedFrequencyAt(frequency < 0 ? -frequency : frequency, norm);
    }
    this.ownTerms = ownTerms;
    this.sum[0] = sum;
  }

  /**
   * `sumOf` for a query of at most 32 terms (one word of bits, nearly every query), in one function over locals: the
   * same sums in the same order as `borrow` then `sumOf`'s loop.
   */
  private sumOfFew(slot: number, context: WalkContext, shares: Float64Array): void {
    const { chains } = context;
    const norm = this.norm[0] as number;
    const { termCount, own, stored, held, holder, lends, lender, lent, lentSum } = this;
    const r = slot & RING_MASK;
    const mine = held[r] as number;
    let lentMask = 0;
    if (((chains.kinds[slot] as number) & BORROWS) !== 0) {
      const { links, weightCodes, weights } = chains;
      let valid = chains.lending[slot] as number;
      const base = slot * MAX_LINKS;
      while (valid !== 0) {
        const low = valid & -valid;
        valid ^= low;
        const j = 31 - Math.clz32(low);
        const link = links[base + j] as number;
        const from = link >>> EPOCH_BITS;
        if (Math.abs((from >>> BLOCK_BITS) - (slot >>> BLOCK_BITS)) > 1) {
          this.mask[0] = mine | lentMask;
          this.lentMask[0] = lentMask;
          this.lentFromLists(slot, from, link, weights[weightCodes[base + j] as number] as number, context);
          lentMask = this.lentMask[0] as number;
          continue;
        }
        const f = from & RING_MASK;
        if (holder[f] !== from + 1) continue;
        let bits = lends[f] as number;
        if (bits === 0) continue;
        const weight = weights[weightCodes[base + j] as number] as number;
        while (bits !== 0) {
          const bit = bits & -bits;
          bits ^= bit;
          const t = 31 - Math.clz32(bit);
          if (lender[f * termCount + t] !== link) continue;
          if ((lentMask & bit) === 0) {
            lentMask |= bit;
            lentSum[t] = (mine & bit) !== 0 ? (stored[r * termCount + t] as number) : 0;
          }
          lentSum[t] = addLent(lentSum[t] as number, weight, lent[f * termCount + t] as number);
        }
      }
    }
    let sum = 0;
    let ownTerms = 0;
    let bits = mine | lentMask;
    while (bits !== 0) {
      const bit = bits & -bits;
      bits ^= bit;
      const t = 31 - Math.clz32(bit);
      const has = (mine & bit) !== 0;
      const count = has ? (own[r * termCount + t] as number) : 0;
      const neighbours =
        (lentMask & bit) !== 0 ? (lentSum[t] as number) : has ? (stored[r * termCount + t] as number) : 0;
      const frequency = heldFrequency(count, neighbours);
      if (frequency > 0) ownTerms++;
      sum = sum + (shares[t] as number) * saturatedFrequencyAt(frequency < 0 ? -frequency : frequency, norm);
    }
    this.ownTerms = ownTerms;
    this.sum[0] = sum;
  }

  /** Sets `mask` to `slot`'s terms, and `lentMask` and `lentSum` to what its neighbours lend it of them. */
  private borrow(slot: number, context: WalkContext): void {
    const { chains } = context;
    const { kinds, links, weightCodes, weights } = chains;
    const { words, mask, lentMask, held } = this;
    const r = slot & RING_MASK;
    for (let w = 0; w < words; w++) {
      mask[w] = held[r * words + w] as number;
      lentMask[w] = 0;
    }
    if (((kinds[slot] as number) & BORROWS) === 0) return;
    // Its links that lend to it (both ends name each other, the first of a repeated one), kept at insert.
    let valid = chains.lending[slot] as number;
    const base = slot * MAX_LINKS;
    while (valid !== 0) {
      const low = valid & -valid;
      valid ^= low;
      const j = 31 - Math.clz32(low);
      const link = links[base + j] as number;
      const from = link >>> EPOCH_BITS;
      // Most neighbours lend no query term: one in the ring that lends none is passed at once.
      if (Math.abs((from >>> BLOCK_BITS) - (slot >>> BLOCK_BITS)) <= 1) {
        if (this.lendsAny(from))
          this.lentFromRing(slot, from, link, weights[weightCodes[base + j] as number] as number);
      } else this.lentFromLists(slot, from, link, weights[weightCodes[base + j] as number] as number, context);
    }
  }

  /** Whether the neighbour `from`, in the ring, lends some query term (it has no posting of any when not held). */
  private lendsAny(from: number): boolean {
    const r = from & RING_MASK;
    if (this.holder[r] !== from + 1) return false;
    if (this.words === 1) return this.lends[r] !== 0;
    for (let w = r * this.words; w < (r + 1) * this.words; w++) if (this.lends[w] !== 0) return true;
    return false;
  }

  /**
   * Adds what `from` lends of `term` through a link of `weight` (`times` occurrences) to `slot`'s sum of it, as
   * term-walk.ts sums it: its stored context first (when it holds a posting of it), then link after link in order.
   */
  private lend(slot: number, term: number, weight: number, times: number): void {
    const word = term >>> 5;
    const bit = 1 << (term & 31);
    if (((this.lentMask[word] as number) & bit) === 0) {
      const r = slot & RING_MASK;
      const has = ((this.held[r * this.words + word] as number) & bit) !== 0;
      this.lentSum[term] = has ? (this.stored[r * this.termCount + term] as number) : 0;
      this.mask[word] = (this.mask[word] as number) | bit;
      this.lentMask[word] = (this.lentMask[word] as number) | bit;
    }
    this.lentSum[term] = addLent(this.lentSum[term] as number, weight, times);
  }

  /** What the neighbour `from`, in the ring, lends through the link `link` (of `weight`), term by term. */
  private lentFromRing(slot: number, from: number, link: number, weight: number): void {
    const { termCount, words, lender, lent, lends } = this;
    const r = from & RING_MASK;
    for (let w = 0; w < words; w++) {
      let bits = lends[r * words + w] as number;
      while (bits !== 0) {
        const low = bits & -bits;
        bits ^= low;
        const t = w * 32 + (31 - Math.clz32(low));
        if (lender[r * termCount + t] !== link) continue;
        this.lend(slot, t, weight, lent[r * termCount + t] as number);
      }
    }
  }

  /** The same for a neighbour outside the ring: its own posting of each term, found in the lists by slot. */
  private lentFromLists(slot: number, from: number, link: number, weight: number, context: WalkContext): void {
    const { epochs, chains, table } = context;
    if (((chains.kinds[from] as number) & SPLIT) === 0) return;
    for (let t = 0; t < this.termCount; t++) {
      const list = this.lists[t] as TermPostings;
      const holdsDead = list.size !== list.live;
      let lending = 0;
      for (let i = list.firstOf(from); i < list.size && (list.entries[i] as number) >>> EPOCH_BITS === from; i++) {
        const entry = list.entries[i] as number;
        if (holdsDead && (entry & EPOCH_MASK) !== epochs[from]) continue;
        const code = list.codes ? (list.codes[i] as number) : -1;
        const value = code >= 0 ? (table.values[code] as number) : list.frequencyAt(i, table);
        if (value < 0) continue;
        const lends = code >= 0 ? (table.lents[code] as number) : decodeOwn(value)[1];
        // The last own posting of the slot is the one a walk keeps; it lends only to the link naming it.
        if (lends !== 0) lending = entry === link ? lends : 0;
      }
      if (lending !== 0) this.lend(slot, t, weight, lending);
    }
  }
}
