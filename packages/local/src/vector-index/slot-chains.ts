import { EPOCH_BITS, EPOCH_MASK } from './term-postings.ts';

/** A slot's postings hold its own counts only (each coded with what it lends, `ownCode`): it can lend them. */
export const SPLIT = 1;
/** A SPLIT slot whose neighbours' terms are lent at query time from their postings, not stored in its own. */
export const BORROWS = 2;
/** Neighbours one slot links to (chunkTerms' default window: 2 on each side). */
export const MAX_LINKS = 4;
/** An empty link: slot 2^24 - 1 at epoch 255, a slot chain.ts never links (MAX_SLOTS - 1). */
export const NO_LINK = 0xffffffff;
/** A SPLIT own posting is `lent + unlent / UNLENT_SCALE`: whole counts, so the code is exact. */
const UNLENT_SCALE = 65536;

/** What a SPLIT slot is written with (chain.ts): its neighbours' slots in lending order, and their weights. */
export interface SlotChain {
  links: number[];
  weights: number[];
  /** Its contextTerms are what its links lend (checked): they are not stored. */
  borrows: boolean;
}

/** The value a SPLIT slot's own posting stores: `own` occurrences, `unlent` of them its neighbours do not borrow. */
export function ownCode(own: number, unlent: number): number {
  return own - unlent + unlent / UNLENT_SCALE;
}

/** `ownCode` read back: [own occurrences, those lent]. */
export function decodeOwn(value: number): [own: number, lent: number] {
  const lent = Math.floor(value);
  return [lent + Math.round((value - lent) * UNLENT_SCALE), lent];
}

/**
 * Which slots are SPLIT and BORROWS, and each one's links: up to MAX_LINKS entries (slot << EPOCH_BITS | the
 * slot's epoch when linked, -1 for none) with a weight code each. A link is followed only when both ends name each
 * other at their current epochs (term-walk.ts), so a slot reused since never lends or borrows through it.
 */
export class SlotChains {
  kinds = new Uint8Array(1024);
  links = new Uint32Array(1024 * MAX_LINKS).fill(NO_LINK);
  weightCodes = new Uint8Array(1024 * MAX_LINKS);
  /**
   * Per slot, bit j: its link j is one a query follows, the first link to its entry and one whose slot names this
   * slot back at its current epoch (positionOf on both ends, what every query checked per owner and link before).
   * Kept by `set` and `clear` for the slot and every slot it links to (or linked to), the only slots whose bits they
   * change: a slot's epoch moves only when it is removed, after `clear`.
   */
  lending = new Uint8Array(1024);
  /** Weights by code: a namespace's chains use a few (chunkTerms' before and after). */
  readonly weights: number[] = [];
  private readonly codes = new Map<number, number>();

  /** Whether `weights` can all be coded (at most 256 distinct weights a namespace). */
  canCode(weights: readonly number[]): boolean {
    let added = 0;
    for (const weight of weights) if (!this.codes.has(weight)) added++;
    return this.weights.length + added <= 256;
  }

  set(slot: number, chain: SlotChain, epochs: Uint8Array): void {
    this.ensureCapacity(slot + 1);
    const before = this.linkedSlots(slot);
    this.kinds[slot] = SPLIT | (chain.borrows ? BORROWS : 0);
    const base = slot * MAX_LINKS;
    for (let k = 0; k < MAX_LINKS; k++) {
      const linked = chain.links[k];
      this.links[base + k] = linked === undefined ? NO_LINK : linked * (EPOCH_MASK + 1) + (epochs[linked] as number);
      this.weightCodes[base + k] = linked === undefined ? 0 : this.codeOf(chain.weights[k] as number);
    }
    this.relend(slot, before, epochs);
  }

  clear(slot: number, epochs: Uint8Array): void {
    if (slot >= this.kinds.length) return;
    const before = this.linkedSlots(slot);
    this.kinds[slot] = 0;
    this.links.fill(NO_LINK, slot * MAX_LINKS, (slot + 1) * MAX_LINKS);
    this.relend(slot, before, epochs);
  }

  /** The slots `slot` links to now (any epoch). */
  private linkedSlots(slot: number): number[] {
    const found: number[] = [];
    for (let j = 0; j < MAX_LINKS; j++) {
      const link = this.links[slot * MAX_LINKS + j] as number;
      if (link !== NO_LINK) found.push(link >>> EPOCH_BITS);
    }
    return found;
  }

  /** Recomputes `lending` for `slot`, the slots it linked to before a change, and those it links to now. */
  private relend(slot: number, before: readonly number[], epochs: Uint8Array): void {
    this.lending[slot] = this.lendingOf(slot, epochs);
    for (const other of before) if (other < this.kinds.length) this.lending[other] = this.lendingOf(other, epochs);
    for (const other of this.linkedSlots(slot)) {
      if (other < this.kinds.length) this.lending[other] = this.lendingOf(other, epochs);
    }
  }

  private lendingOf(slot: number, epochs: Uint8Array): number {
    const self = slot * (EPOCH_MASK + 1) + (epochs[slot] as number);
    const base = slot * MAX_LINKS;
    let bits = 0;
    for (let j = 0; j < MAX_LINKS; j++) {
      const link = this.links[base + j] as number;
      if (link === NO_LINK || this.positionOf(slot, link) !== j) continue; // a repeated link: the first one borrows
      const from = link >>> EPOCH_BITS;
      if (from < this.kinds.length && this.positionOf(from, self) >= 0) bits |= 1 << j;
    }
    return bits;
  }

  /** The position of the link to `entry` (slot and epoch) among `borrower`'s links, or -1. */
  positionOf(borrower: number, entry: number): number {
    const base = borrower * MAX_LINKS;
    for (let j = 0; j < MAX_LINKS; j++) if (this.links[base + j] === entry) return j;
    return -1;
  }

  /**
   * The live slots that borrow from `lender` (its current version), by its links; `live` tells a slot's current
   * entry from a stale one.
   */
  borrowersOf(lender: number, epochs: Uint8Array, lengths: Float64Array): number[] {
    const found: number[] = [];
    if (lender >= this.kinds.length) return found;
    const self = lender * (EPOCH_MASK + 1) + (epochs[lender] as number);
    for (let k = 0; k < MAX_LINKS; k++) {
      const link = this.links[lender * MAX_LINKS + k] as number;
      if (link === NO_LINK) continue;
      const slot = link >>> EPOCH_BITS;
      if ((link & EPOCH_MASK) !== epochs[slot] || !((lengths[slot] as number) > 0)) continue;
      if ((this.kinds[slot] as number) & BORROWS && this.positionOf(slot, self) >= 0) found.push(slot);
    }
    return found;
  }

  /**
   * The chains of every slot below `slotCount`, as a snapshot stores them: kinds, links as slots (-1: none, or no
   * longer current), weight codes, and the weights.
   */
  snapshot(slotCount: number, epochs: Uint8Array, lengths: Float64Array): SnapshotChains {
    this.ensureCapacity(slotCount);
    const linked = new Int32Array(slotCount * MAX_LINKS).fill(-1);
    for (let at = 0; at < slotCount * MAX_LINKS; at++) {
      const link = this.links[at] as number;
      if (link === NO_LINK) continue;
      const slot = link >>> EPOCH_BITS;
      if ((link & EPOCH_MASK) === epochs[slot] && (lengths[slot] as number) > 0) linked[at] = slot;
    }
    return {
      kinds: this.kinds.slice(0, slotCount),
      links: linked,
      weightCodes: this.weightCodes.slice(0, slotCount * MAX_LINKS),
      weights: Float64Array.from(this.weights),
    };
  }

  /**
   * Loads what `snapshot` gave for `slotCount` slots into an empty instance (the slots' epochs are the loaded
   * postings', 0): the slots from `from` up to `to`, so a reader can give the event loop back between ranges.
   */
  restore(
    { kinds, links, weightCodes, weights }: SnapshotChains,
    slotCount: number,
    epochs: Uint8Array,
    from = 0,
    to = slotCount,
  ): void {
    for (let slot = from; slot < to; slot++) {
      if (kinds[slot] === 0) continue;
      const base = slot * MAX_LINKS;
      const chain: SlotChain = { links: [], weights: [], borrows: ((kinds[slot] as number) & BORROWS) !== 0 };
      for (let k = 0; k < MAX_LINKS; k++) {
        const linked = links[base + k] as number;
        if (linked < 0) continue;
        const weight = weights[weightCodes[base + k] as number];
        if (linked >= slotCount || weight === undefined) throw new Error('lexical snapshot has a broken chain');
        chain.links.push(linked);
        chain.weights.push(weight);
      }
      this.set(slot, chain, epochs);
    }
  }

  ensureCapacity(slots: number): void {
    if (slots <= this.kinds.length) return;
    const size = Math.max(slots, this.kinds.length * 2);
    const kinds = new Uint8Array(size);
    kinds.set(this.kinds);
    const links = new Uint32Array(size * MAX_LINKS).fill(NO_LINK);
    links.set(this.links);
    const codes = new Uint8Array(size * MAX_LINKS);
    codes.set(this.weightCodes);
    const lending = new Uint8Array(size);
    lending.set(this.lending);
    this.lending = lending;
    this.kinds = kinds;
    this.links = links;
    this.weightCodes = codes;
  }

  private codeOf(weight: number): number {
    let code = this.codes.get(weight);
    if (code === undefined) {
      code = this.weights.push(weight) - 1;
      this.codes.set(weight, code);
    }
    return code;
  }
}

/** A snapshot's chains (lexical-file.ts): per slot its kind and MAX_LINKS links (slots) with weight codes. */
export interface SnapshotChains {
  kinds: Uint8Array;
  links: Int32Array;
  weightCodes: Uint8Array;
  weights: Float64Array;
}
