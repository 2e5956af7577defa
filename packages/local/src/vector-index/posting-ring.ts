import { decodeOwn, SPLIT } from './slot-chains.ts';
import { EPOCH_BITS, EPOCH_MASK, type TermPostings } from './term-postings.ts';
import type { WalkContext } from './term-walk.ts';

/** Slots a block: one 32-bit word of touched slots. */
export const BLOCK_BITS = 5;
const BLOCK_SLOTS = 1 << BLOCK_BITS;
/** The ring holds 4 blocks: the one being finished, its neighbours on each side, and room to jump ahead. */
const RING_BLOCKS = 4;
const RING = BLOCK_SLOTS * RING_BLOCKS;
export const RING_MASK = RING - 1;
/** One entry's worth of slots in a block, as entries compare (slot << EPOCH_BITS | epoch). */
const BLOCK_ENTRIES = BLOCK_SLOTS * (EPOCH_MASK + 1);

/**
 * A query's term lists read in one sweep in slot order, block by block of 32 slots, term after term, into a ring of
 * the last few blocks' postings: what each slot holds of each term (own count, stored context) and what it lends its
 * neighbours. A block's owners (slots with a query term in their own text) are visited once the block after it is
 * read: a borrower's neighbours (chunkTerms' window, 2 each side) are then all in the ring. lexical-sweep.ts finishes
 * them from here. A walk per term read each slot's kind, links and counts once per term, all over the namespace (at
 * 100k chunks the walks were half of a query, mostly waiting for memory).
 */
export class PostingRing {
  protected lists: TermPostings[] = [];
  protected cursors = new Int32Array(32);
  protected termCount = 0;
  protected words = 1;
  /** The slot each ring position holds (+1; 0: none): a position's records are only read for that slot. */
  protected holder = new Int32Array(RING);
  /** Per ring position and term (position * termCount + term): own count, stored context, lending entry, lent. */
  protected own = new Float64Array(RING * 32);
  protected stored = new Float64Array(RING * 32);
  protected lender = new Uint32Array(RING * 32);
  protected lent = new Uint32Array(RING * 32);
  /** Per ring position, bits by term (position * words + word): terms it has a posting of, terms it lends. */
  protected held = new Uint32Array(RING);
  protected lends = new Uint32Array(RING);
  private owner = new Uint8Array(RING);
  /** Per ring block: which block it holds (+1), and its touched slots' bits. */
  private blockHolder = new Int32Array(RING_BLOCKS);
  private touched = new Uint32Array(RING_BLOCKS);

  /** Visits each slot owning one of `lists`' terms, in slot order, with the blocks on each side of it read. */
  run(lists: TermPostings[], context: WalkContext, visit: (slot: number, ring: this) => void): void {
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

  /** Points the ring at `lists`, each in slot order, its arrays grown to hold their terms. */
  protected prepare(lists: TermPostings[]): void {
    const count = lists.length;
    this.lists = lists;
    this.termCount = count;
    this.words = Math.max(1, Math.ceil(count / 32));
    if (this.cursors.length < count) {
      const size = Math.max(count, this.cursors.length * 2);
      this.cursors = new Int32Array(size);
      this.own = new Float64Array(RING * size);
      this.stored = new Float64Array(RING * size);
      this.lender = new Uint32Array(RING * size);
      this.lent = new Uint32Array(RING * size);
    }
    if (this.held.length < RING * this.words) {
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
  private finish(block: number, visit: (slot: number, ring: this) => void): void {
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
}
