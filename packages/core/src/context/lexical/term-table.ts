import { runToEnd } from '../../history/time-slice.ts';
import type { SparseValues } from '../ports.ts';

/**
 * Weighted term counts over the terms of one sequence of texts (an add's chunks), in typed arrays: each distinct
 * term id gets a rank in ascending id order, so summing is an array add and a chunk's sparse vector comes out
 * sorted by sorting small integers. A Map keyed by 32-bit ids (most are heap numbers, not small integers) cost
 * most of chunkTerms' time. Each term's weights are added one at a time in the order given, as before, so the sums
 * have the same bits.
 */
export class TermTable {
  /** The distinct ids, ascending: a rank's id. */
  private ids!: Uint32Array;
  /**
   * Open addressing on the ids themselves (they are hashes already: termId's finaliser, well mixed in their low
   * bits): `slots` holds an id's position + 1 in `keys` order of insertion (0: empty), `rankOf` its rank. A Map
   * keyed by 32-bit ids (heap numbers above 2^30) cost a third of chunkTerms.
   */
  private readonly keys: Uint32Array;
  private readonly slots: Int32Array;
  private readonly rankOf: Int32Array;
  private readonly mask: number;
  // Set once every id is collected (rank).
  private sums!: Float64Array;
  private seen!: Uint8Array;
  private touched!: Int32Array;
  private count = 0;
  private distinct = 0;

  /** The table of the ids in `lists`. */
  static of(lists: readonly (readonly number[])[]): TermTable {
    return runToEnd(TermTable.collecting(lists));
  }

  /**
   * `of` in steps, a list each: an add of megabytes holds a million ids (~80 ms of CPU to collect), and
   * `ownTermsInSteps` gives the event loop back between steps.
   */
  static *collecting(lists: readonly (readonly number[])[]): Generator<void, TermTable> {
    let total = 0;
    for (const list of lists) total += list.length;
    const table = new TermTable(total);
    for (const list of lists) {
      table.collect(list);
      yield;
    }
    table.rank();
    return table;
  }

  private constructor(total: number) {
    let capacity = 16;
    while (capacity < 2 * total) capacity *= 2;
    this.mask = capacity - 1;
    this.slots = new Int32Array(capacity);
    this.rankOf = new Int32Array(capacity);
    this.keys = new Uint32Array(total);
  }

  private collect(list: readonly number[]): void {
    let { distinct } = this;
    for (let i = 0; i < list.length; i++) {
      const id = list[i] as number;
      const slot = this.slotOf(id);
      if (this.slots[slot] !== 0) continue;
      this.keys[distinct++] = id;
      this.slots[slot] = distinct;
    }
    this.distinct = distinct;
  }

  private rank(): void {
    const { distinct } = this;
    this.ids = this.keys.slice(0, distinct).sort();
    for (let rank = 0; rank < distinct; rank++) this.rankOf[this.slotOf(this.ids[rank] as number)] = rank;
    this.sums = new Float64Array(distinct);
    this.seen = new Uint8Array(distinct);
    this.touched = new Int32Array(distinct);
  }

  /** The slot holding `id`, or the empty one where it goes. */
  private slotOf(id: number): number {
    let slot = id & this.mask;
    for (;;) {
      const entry = this.slots[slot] as number;
      if (entry === 0 || this.keys[entry - 1] === id) return slot;
      slot = (slot + 1) & this.mask;
    }
  }

  /** The ranks of `list`'s ids, in order (each id must be one the table was built from). */
  ranks(list: readonly number[]): Int32Array {
    const ranks = new Int32Array(list.length);
    for (let i = 0; i < list.length; i++) ranks[i] = this.rankOf[this.slotOf(list[i] as number)] as number;
    return ranks;
  }

  /** Adds `weight` once per occurrence, in order. */
  add(ranks: Int32Array, weight: number): void {
    const { sums, seen, touched } = this;
    for (let i = 0; i < ranks.length; i++) {
      const rank = ranks[i] as number;
      if (seen[rank] === 0) {
        seen[rank] = 1;
        touched[this.count++] = rank;
      }
      sums[rank] = (sums[rank] as number) + weight;
    }
  }

  /** Whether anything was added since the last `take`. */
  get empty(): boolean {
    return this.count === 0;
  }

  /** Forgets what was added since the last `take`, as `take` does; how many distinct terms it held. */
  clear(): number {
    const count = this.count;
    for (let i = 0; i < count; i++) {
      const rank = this.touched[i] as number;
      this.sums[rank] = 0;
      this.seen[rank] = 0;
    }
    this.count = 0;
    return count;
  }

  /** What was added since the last `take`, as ascending ids and their sums; then starts again from nothing. */
  take(): SparseValues {
    const ranks = this.touched.subarray(0, this.count).sort();
    const indices = new Array<number>(ranks.length);
    const values = new Array<number>(ranks.length);
    for (let i = 0; i < ranks.length; i++) {
      const rank = ranks[i] as number;
      indices[i] = this.ids[rank] as number;
      values[i] = this.sums[rank] as number;
      this.sums[rank] = 0;
      this.seen[rank] = 0;
    }
    this.count = 0;
    return { indices, values };
  }
}
