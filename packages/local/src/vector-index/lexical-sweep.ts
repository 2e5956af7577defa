import { saturatedFrequencyAt } from '@memgate/core';
import { BORROWS, decodeOwn, MAX_LINKS, SPLIT } from './slot-chains.ts';
import { EPOCH_BITS, EPOCH_MASK, type TermPostings } from './term-postings.ts';
import { addLent, heldFrequency, type WalkContext } from './term-walk.ts';

/** Slots a block: one 32-bit word of touched slots. */
const BLOCK_BITS = 5;
const BLOCK_SLOTS = 1 << BLOCK_BITS;
/** The ring holds 4 blocks: the one being finished, its neighbours on each side, and room to jump ahead. */
const RING_BLOCKS = 4;
const RING = BLOCK_SLOTS * RING_BLOCKS;
const RING_MASK = RING - 1;
/** One entry's worth of slots in a block, as entries compare (slot << EPOCH_BITS | epoch). */
const BLOCK_ENTRIES = BLOCK_SLOTS * (EPOCH_MASK + 1);

/** Called for each slot owning a query term, in slot order: `sweep.frequenciesOf` gives its terms' frequencies. */
export type OwnerVisit = (slot: number, sweep: LexicalSweep) => void;

/**
 * Each slot owning one of a query's terms, with its frequency of every query term it holds (own, stored context or
 * lent by its neighbours, term-walk.ts's frequencies to the bit), from one sweep of the query's lists in slot order.
 * A walk per term read each slot's kind, links and counts once per term, all over the namespace (at 100k chunks the
 * walks were half of a query, mostly waiting for memory); here the lists are read block by block of 32 slots, term
 * after term, into a ring of the last few blocks' postings (what each slot holds of each term, and lends), and a
 * block's slots are finished once the block after it is read: a borrower's neighbours (chunkTerms' window, 2 each
 * side) are then all in the ring, and it reads what they lend from there. A neighbour further away (a reused slot)
 * is looked up in the lists (they are in slot order). Only owners are finished: a slot's score needs a query term of
 * its own, and 3 in 4 of the slots holding a term at 100k chunks hold it only through their neighbours.
 * The frequencies are summed as term-walk.ts sums them: own count, then stored context, then each link's lent
 * occurrences one at a time in link order.
 */
export class LexicalSweep {
  /** The finished slot's terms (query positions, ascending) and their frequencies: `count` of each. */
  terms = new Int32Array(32);
  frequencies = new Float64Array(32);
  count = 0;
  /** After `sumOf`: the terms the slot holds in its own text. */
  ownTerms = 0;
  /** `sumInto`'s length norm (in) and sum (out). */
  readonly norm = new Float64Array(1);
  readonly sum = new Float64Array(1);
  private lists: TermPostings[] = [];
  private cursors = new Int32Array(32);
  private termCount = 0;
  private words = 1;
  /** The slot each ring position holds (+1; 0: none): a position's records are only read for that slot. */
  private holder = new Int32Array(RING);
  /** Per ring position and term (position * termCount + term): own count, stored context, lending entry, lent. */
  private own = new Float64Array(RING * 32);
  private stored = new Float64Array(RING * 32);
  private lender = new Uint32Array(RING * 32);
  private lent = new Uint32Array(RING * 32);
  /** Per ring position, bits by term (position * words + word): terms it has a posting of, terms it lends. */
  private held = new Uint32Array(RING);
  private lends = new Uint32Array(RING);
  private owner = new Uint8Array(RING);
  /** Per ring block: which block it holds (+1), and its touched slots' bits. */
  private blockHolder = new Int32Array(RING_BLOCKS);
  private touched = new Uint32Array(RING_BLOCKS);
  /** Scratch of the slot being finished: its terms' bits, and each term's neighbours' sum once some link lends it. */
  private mask = new Uint32Array(1);
  /** Of those, the terms some link lends it: `lentSum` holds their sums. */
  private lentMask = new Uint32Array(1);
  private lentSum = new Float64Array(32);

  run(lists: TermPostings[], context: WalkContext, visit: OwnerVisit): void {
    this.prepare(lists);
    let pending = -1;
    for (let block = this.nextBlock(); block >= 0; block = this.nextBlock()) {
      // Nothing in the block after the pending one: its neighbours there lend nothing.
      if (pending >= 0 && block > pending + 1) this.finish(pending, visit);
      this.gather(block, context);
      // Not before the first block: "block -1" would visit the ring's leftovers from the previous query.
      if (pending >= 0 && pending === block - 1) this.finish(pending, visit);
      pending = block;
    }
    if (pending >= 0) this.finish(pending, visit);
    this.holder.fill(0);
    this.blockHolder.fill(0);
  }

  private prepare(lists: TermPostings[]): void {
    const count = lists.length;
    this.lists = lists;
    this.termCount = count;
    this.words = Math.max(1, Math.ceil(count / 32));
    if (this.cursors.length < count) {
      const size = Math.max(count, this.cursors.length * 2);
      this.cursors = new Int32Array(size);
      this.terms = new Int32Array(size);
      this.frequencies = new Float64Array(size);
      this.own = new Float64Array(RING * size);
      this.stored = new Float64Array(RING * size);
      this.lender = new Uint32Array(RING * size);
      this.lent = new Uint32Array(RING * size);
      this.lentSum = new Float64Array(size);
    }
    if (this.mask.length < this.words) {
      this.mask = new Uint32Array(this.words);
      this.lentMask = new Uint32Array(this.words);
      this.held = new Uint32Array(RING * this.words);
      this.lends = new Uint32Array(RING * this.words);
    }
    for (const [t, list] of lists.entries()) {
      list.inSlotOrder();
      this.cursors[t] = 0;
    }
  }

  /** The lowest block any list has a posting left in, or -1. */
  private nextBlock(): number {
    let next = -1;
    for (let t = 0; t < this.termCount; t++) {
      const list = this.lists[t] as TermPostings;
      const at = this.cursors[t] as number;
      if (at >= list.size) continue;
      const block = ((list.entries[at] as number) >>> EPOCH_BITS) >>> BLOCK_BITS;
      if (next < 0 || block < next) next = block;
    }
    return next;
  }

  /** Reads every list's postings in `block` into the ring, term after term. */
  private gather(block: number, { epochs, chains, table }: WalkContext): void {
    const { kinds } = chains;
    const { values, owns, lents } = table;
    const { holder, own, stored, lender, lent, held, lends, owner, termCount, words } = this;
    const end = (block + 1) * BLOCK_ENTRIES;
    const ringBlock = block & (RING_BLOCKS - 1);
    if (this.blockHolder[ringBlock] !== block + 1) {
      this.blockHolder[ringBlock] = block + 1;
      this.touched[ringBlock] = 0;
    }
    let touched = this.touched[ringBlock] as number;
    for (let t = 0; t < termCount; t++) {
      const list = this.lists[t] as TermPostings;
      const { entries, codes, wide, size } = list;
      const holdsDead = size !== list.live;
      const word = t >>> 5;
      const bit = 1 << (t & 31);
      let i = this.cursors[t] as number;
      for (; i < size; i++) {
        const entry = entries[i] as number;
        if (entry >= end) break;
        const slot = entry >>> EPOCH_BITS;
        if (holdsDead && (entry & EPOCH_MASK) !== epochs[slot]) continue; // a removed slot's, not compacted yet
        const r = slot & RING_MASK;
        if (holder[r] !== slot + 1) {
          holder[r] = slot + 1;
          for (let w = r * words; w < (r + 1) * words; w++) held[w] = lends[w] = 0;
          owner[r] = 0;
          touched |= 1 << (slot & (BLOCK_SLOTS - 1));
        }
        const at = r * termCount + t;
        if (((held[r * words + word] as number) & bit) === 0) {
          held[r * words + word] = (held[r * words + word] as number) | bit;
          own[at] = 0;
          stored[at] = 0;
        }
        const code = codes ? (codes[i] as number) : -1;
        const value = codes ? (values[code] as number) : ((wide as Float64Array)[i] as number);
        if (value < 0) {
          stored[at] = -value;
          continue;
        }
        let mine = value;
        let lending = 0;
        if (((kinds[slot] as number) & SPLIT) !== 0) {
          if (code >= 0) {
            mine = owns[code] as number;
            lending = lents[code] as number;
          } else [mine, lending] = decodeOwn(value);
        }
        own[at] = mine;
        if (mine > 0) owner[r] = 1;
        if (lending === 0) continue;
        lends[r * words + word] = (lends[r * words + word] as number) | bit;
        lender[at] = entry;
        lent[at] = lending;
      }
      this.cursors[t] = i;
    }
    this.touched[ringBlock] = touched;
  }

  /** Finishes the owners of `block` (read, as are the blocks on each side of it that hold postings), in slot order. */
  private finish(block: number, visit: OwnerVisit): void {
    const ringBlock = block & (RING_BLOCKS - 1);
    if (this.blockHolder[ringBlock] !== block + 1) return;
    let bits = this.touched[ringBlock] as number;
    while (bits !== 0) {
      const low = bits & -bits;
      bits ^= low;
      const slot = block * BLOCK_SLOTS + (31 - Math.clz32(low));
      if (this.owner[slot & RING_MASK] !== 0) visit(slot, this);
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
