import type { SparseValues } from '../ports.ts';

/**
 * Weighted term counts over the terms of one sequence of texts (an add's chunks), in typed arrays: each distinct
 * term id gets a rank in ascending id order, so summing is an array add and a chunk's sparse vector comes out
 * sorted by sorting small integers. A Map keyed by 32-bit ids (most are heap numbers, not small integers) cost
 * most of chunkTerms' time. Each term's weights are added one at a time in the order given, as before, so the sums
 * have the same bits.
 */
export class TermTable {
  private readonly ids: number[];
  private readonly rankOf = new Map<number, number>();
  private readonly sums: Float64Array;
  private readonly seen: Uint8Array;
  private readonly touched: Int32Array;
  private count = 0;

  constructor(lists: readonly (readonly number[])[]) {
    const distinct = new Set<number>();
    for (const list of lists) for (const id of list) distinct.add(id);
    this.ids = [...distinct].sort((a, b) => a - b);
    for (const [rank, id] of this.ids.entries()) this.rankOf.set(id, rank);
    this.sums = new Float64Array(this.ids.length);
    this.seen = new Uint8Array(this.ids.length);
    this.touched = new Int32Array(this.ids.length);
  }

  /** The ranks of `list`'s ids, in order (each id must be one the table was built from). */
  ranks(list: readonly number[]): Int32Array {
    // A plain loop: Int32Array.from with a mapping function goes through the iterator protocol, 4-5x slower.
    const ranks = new Int32Array(list.length);
    for (let i = 0; i < list.length; i++) ranks[i] = this.rankOf.get(list[i] as number) as number;
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
