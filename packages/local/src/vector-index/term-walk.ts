import type { FrequencyTable } from './frequency-table.ts';
import { BORROWS, decodeOwn, MAX_LINKS, NO_LINK, type SlotChains, SPLIT } from './slot-chains.ts';
import { EPOCH_BITS, EPOCH_MASK, type TermPostings } from './term-postings.ts';

/** What a walk reads besides the list (each slot's epoch, the chains, the frequency table), and the slots' lengths. */
export interface WalkContext {
  epochs: Uint8Array;
  lengths: Float64Array;
  chains: SlotChains;
  table: FrequencyTable;
}

/** A touched slot's record in `TermWalk.work`: own count, stored context (float64 each), MAX_LINKS lent counts. */
const RECORD_DOUBLES = 4;
const RECORD_WORDS = RECORD_DOUBLES * 2;
const LENT_WORD = 4;

/**
 * Adds a neighbour's lent occurrences of a term to a slot's context sum one at a time, as chunkTerms summed the
 * stored contextTerms, so the sum has the same bits.
 */
export function addLent(context: number, weight: number, times: number): number {
  let sum = context;
  for (let n = 0; n < times; n++) sum += weight;
  return sum;
}

/** A slot's frequency of a term as its postings would store it: `own + context` (own first), or `-context` without own. */
export function heldFrequency(own: number, context: number): number {
  return own > 0 ? (context > 0 ? own + context : own) : -context;
}

/**
 * One term's frequency in every live slot that holds it, from its postings: a slot's own count, plus its neighbours'
 * weighted counts, either stored with it (a negative posting) or lent at query time by the neighbours' own postings
 * (BORROWS, slot-chains.ts). A borrowed sum adds each neighbour's occurrences one at a time in the chain's order, as
 * chunkTerms summed the stored contextTerms, so it has the same bits; the frequency is then `own + context` (own
 * first) or `-context` when the slot's own text does not hold the term, as the postings stored it before (lexical.ts).
 * The result holds until the next walk: `slots[0..count)` in the order they were met, `frequencies[i]` each.
 * Walks count a term's holders (LexicalPostings.counted) and store what borrowers borrow (`storeBorrowed`); a query
 * reads the same frequencies of its owners from one sweep of all its lists (lexical-sweep.ts).
 */
export class TermWalk {
  slots = new Int32Array(1024);
  count = 0;
  /** The frequency of `slots[i]` at `i` (by position, not by slot: read in the order met, as `slots`). */
  frequencies = new Float64Array(1024);
  /** The neighbours' part of the frequency of `slots[i]` at `i` (stored or borrowed; 0 if none). */
  contexts = new Float64Array(1024);
  /**
   * Each touched slot's own count, stored context and the occurrences each of its links lends it (its lender's
   * `lent` count), side by side in RECORD bytes: a walk meets slots all over the namespace, and one cache line per
   * slot instead of one per array halved its time at 100k chunks.
   */
  private work = new Float64Array(1024 * RECORD_DOUBLES);
  /** `work`'s buffer as 32-bit words: the lent counts of slot s are at s * RECORD_WORDS + LENT_WORD + link. */
  private lentBy = new Uint32Array(this.work.buffer);
  private seen = new Uint8Array(1024);

  /** `checkEpochs`: the list's live count may be stale (not recounted since a removal): check every posting. */
  walk(posting: TermPostings, context: WalkContext, checkEpochs = false): void {
    const { epochs, chains, table } = context;
    const { entries, codes, wide, size } = posting;
    const holdsDead = checkEpochs || size !== posting.live;
    const { kinds, links } = chains;
    const { values, owns, lents } = table;
    const { work, lentBy, seen, slots } = this;
    let count = 0;
    for (let i = 0; i < size; i++) {
      const entry = entries[i] as number;
      const slot = entry >>> EPOCH_BITS;
      if (holdsDead && (entry & EPOCH_MASK) !== epochs[slot]) continue; // a removed slot's, not compacted yet
      const at = slot * RECORD_DOUBLES;
      if (seen[slot] === 0) {
        seen[slot] = 1;
        slots[count++] = slot;
        work[at] = 0;
        work[at + 1] = 0;
      }
      const code = codes ? (codes[i] as number) : -1;
      const value = codes ? (values[code] as number) : ((wide as Float64Array)[i] as number);
      if (value < 0) {
        work[at + 1] = -value;
        continue;
      }
      if (((kinds[slot] as number) & SPLIT) === 0) {
        work[at] = value;
        continue;
      }
      let lent: number;
      if (code >= 0) {
        work[at] = owns[code] as number;
        lent = lents[code] as number;
      } else {
        const [occurrences, lending] = decodeOwn(value);
        work[at] = occurrences;
        lent = lending;
      }
      if (lent === 0) continue;
      const base = slot * MAX_LINKS;
      for (let k = 0; k < MAX_LINKS; k++) {
        const link = links[base + k] as number;
        if (link === NO_LINK) continue;
        const borrower = link >>> EPOCH_BITS;
        // A removed slot's kind is cleared (SlotChains.clear) and its epoch bumped: a live borrower passes both.
        if ((link & EPOCH_MASK) !== epochs[borrower] || ((kinds[borrower] as number) & BORROWS) === 0) continue;
        const position = chains.positionOf(borrower, entry);
        if (position < 0) continue;
        if (seen[borrower] === 0) {
          seen[borrower] = 1;
          slots[count++] = borrower;
          work[borrower * RECORD_DOUBLES] = 0;
          work[borrower * RECORD_DOUBLES + 1] = 0;
        }
        lentBy[borrower * RECORD_WORDS + LENT_WORD + position] = lent;
      }
    }
    const { weightCodes, weights } = chains;
    const { frequencies, contexts } = this;
    for (let i = 0; i < count; i++) {
      const slot = slots[i] as number;
      seen[slot] = 0;
      const at = slot * RECORD_DOUBLES;
      let context = work[at + 1] as number;
      if (((kinds[slot] as number) & BORROWS) !== 0) {
        const base = slot * MAX_LINKS;
        const lentAt = slot * RECORD_WORDS + LENT_WORD;
        for (let j = 0; j < MAX_LINKS; j++) {
          const lent = lentBy[lentAt + j] as number;
          if (lent === 0) continue;
          lentBy[lentAt + j] = 0;
          context = addLent(context, weights[weightCodes[base + j] as number] as number, lent);
        }
      }
      const mine = work[at] as number;
      contexts[i] = context;
      frequencies[i] = heldFrequency(mine, context);
    }
    this.count = count;
  }

  /**
   * Appends to each list a stored context posting (negated) for each of `borrowers` that borrows the term now, with
   * what it borrows: they can then stop borrowing (LexicalPostings.detach). `appended` is told each one.
   */
  storeBorrowed(
    lists: Iterable<TermPostings>,
    context: WalkContext,
    borrowers: ReadonlySet<number>,
    appended: (slot: number) => void,
  ): void {
    const { epochs, table } = context;
    for (const posting of lists) {
      this.walk(posting, context, true);
      for (let i = 0; i < this.count; i++) {
        const slot = this.slots[i] as number;
        const borrowed = this.contexts[i] as number;
        if (!(borrowed > 0) || !borrowers.has(slot)) continue;
        // Its own posting (if any) stays; what it borrowed is stored beside it, as `walk` reads it.
        posting.append(slot, epochs[slot] as number, -borrowed, table);
        appended(slot);
      }
    }
  }

  ensureCapacity(slots: number): void {
    if (slots <= this.seen.length) return;
    const size = Math.max(slots, this.seen.length * 2);
    this.slots = new Int32Array(size);
    this.frequencies = new Float64Array(size);
    this.contexts = new Float64Array(size);
    this.work = new Float64Array(size * RECORD_DOUBLES);
    this.lentBy = new Uint32Array(this.work.buffer);
    this.seen = new Uint8Array(size);
  }
}
