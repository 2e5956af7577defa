/**
 * The slots of `open` by falling `score`, equal scores in their order in `open`: what a stable sort would give,
 * taken one at a time from a binary heap (built in linear time), so a caller that stops after a few pays for a
 * few, not for sorting every candidate (a common query term can make most of a tenant a candidate).
 */
export class BestFirst {
  private readonly heap: Int32Array;
  private size: number;

  constructor(
    private readonly open: readonly number[],
    private readonly score: Float64Array,
  ) {
    this.size = open.length;
    this.heap = new Int32Array(this.size);
    for (let i = 0; i < this.size; i++) this.heap[i] = i;
    for (let i = (this.size >> 1) - 1; i >= 0; i--) this.sink(i);
  }

  /** The next slot, or -1 when none is left. */
  next(): number {
    if (this.size === 0) return -1;
    const top = this.heap[0] as number;
    this.size--;
    if (this.size > 0) {
      this.heap[0] = this.heap[this.size] as number;
      this.sink(0);
    }
    return this.open[top] as number;
  }

  /** Whether position `a` of `open` comes before position `b`. */
  private before(a: number, b: number): boolean {
    const sa = this.score[this.open[a] as number] as number;
    const sb = this.score[this.open[b] as number] as number;
    return sa > sb || (sa === sb && a < b);
  }

  private sink(at: number): void {
    const { heap } = this;
    let i = at;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= this.size) return;
      const right = left + 1;
      let first = left;
      if (right < this.size && this.before(heap[right] as number, heap[left] as number)) first = right;
      if (!this.before(heap[first] as number, heap[i] as number)) return;
      const swap = heap[i] as number;
      heap[i] = heap[first] as number;
      heap[first] = swap;
      i = first;
    }
  }
}
