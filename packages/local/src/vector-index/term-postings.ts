const INITIAL_CAPACITY = 4;
/** Dead postings a list may carry before removal compacts it: at most as many as live ones, and a few. */
const SLACK = 8;

/** Document frequency is counted in these units (a whole holder is one): integers, so removals cancel exactly. */
export const HOLDING_UNITS = 1 << 15;

/**
 * How much a slot holds a term towards its document frequency, in HOLDING_UNITS (fits a Uint16): its own text
 * holding it counts 1, as in BM25; a slot that holds it only through its neighbours counts their weighted
 * frequency (0.45 for one occurrence in the chunk before it), as the term's frequency in it does. Counting such a
 * slot as a full holder made a term of one chunk look as common as every chunk within the window, so a few
 * documents added together scored far lower than added one by one (a relevant record fell under the proxy's
 * context floor, bench/EVAL.md).
 */
export function holdingUnits(frequency: number): number {
  return Math.max(1, Math.round(Math.min(1, Math.abs(frequency)) * HOLDING_UNITS));
}

/**
 * One term's postings in typed arrays, in the order they were added: slot, frequency (negated when only the
 * slot's neighbours hold the term) and the slot's epoch when written. Removing a slot bumps its epoch
 * (LexicalPostings) instead of searching every list it is in: a posting whose epoch is no longer its slot's is dead
 * and skipped, and a list holding more dead postings than live ones is compacted, which keeps the order. 16 bytes a
 * posting, against about 80 for a Map entry with a boxed frequency.
 */
export class TermPostings {
  slots = new Int32Array(INITIAL_CAPACITY);
  frequencies = new Float64Array(INITIAL_CAPACITY);
  epochs = new Uint32Array(INITIAL_CAPACITY);
  /** Postings written, live or dead. */
  size = 0;
  /** Live postings. */
  live = 0;
  /** The live postings' holdingUnits, summed. */
  private heldUnits = 0;

  /** The term's document frequency: each live posting counts as much as its slot holds the term (at most 1). */
  get documentFrequency(): number {
    return this.heldUnits / HOLDING_UNITS;
  }

  /** A list loaded from a snapshot: exactly these postings, live, at epoch 0 (a fresh store's epoch). */
  static of(slots: Int32Array<ArrayBuffer>, frequencies: Float64Array<ArrayBuffer>): TermPostings {
    const postings = new TermPostings();
    postings.slots = slots;
    postings.frequencies = frequencies;
    postings.epochs = new Uint32Array(slots.length);
    postings.size = slots.length;
    postings.live = slots.length;
    for (const frequency of frequencies) postings.heldUnits += holdingUnits(frequency);
    return postings;
  }

  /** The live postings (epoch still their slot's), sorted by slot. */
  liveInSlotOrder(slotEpochs: Uint32Array): [slots: Int32Array<ArrayBuffer>, frequencies: Float64Array<ArrayBuffer>] {
    const slots = new Int32Array(this.live);
    const frequencies = new Float64Array(this.live);
    let kept = 0;
    let sorted = true;
    for (let i = 0; i < this.size; i++) {
      const slot = this.slots[i] as number;
      if (this.epochs[i] !== slotEpochs[slot]) continue;
      if (kept > 0 && slot < (slots[kept - 1] as number)) sorted = false;
      slots[kept] = slot;
      frequencies[kept] = this.frequencies[i] as number;
      kept++;
    }
    if (sorted) return [slots, frequencies];
    const order = Array.from(slots.keys()).sort((a, b) => (slots[a] as number) - (slots[b] as number));
    return [
      Int32Array.from(order, (i) => slots[i] as number),
      Float64Array.from(order, (i) => frequencies[i] as number),
    ];
  }

  append(slot: number, frequency: number, epoch: number): void {
    if (this.size === this.slots.length) this.resize(Math.max(INITIAL_CAPACITY, this.size * 2));
    this.slots[this.size] = slot;
    this.frequencies[this.size] = frequency;
    this.epochs[this.size] = epoch;
    this.size++;
    this.live++;
    this.heldUnits += holdingUnits(frequency);
  }

  /** One of the term's slots, which held it `units` (holdingUnits), was removed (its posting is now dead). */
  release(units: number): void {
    this.live--;
    this.heldUnits -= units;
  }

  wasteful(): boolean {
    return this.size - this.live > this.live + SLACK;
  }

  /** Drops dead postings (epoch no longer the slot's), keeping the order of the others. */
  compact(slotEpochs: Uint32Array): void {
    const { slots, frequencies, epochs } = this;
    let kept = 0;
    for (let i = 0; i < this.size; i++) {
      const slot = slots[i] as number;
      if (epochs[i] !== slotEpochs[slot]) continue;
      slots[kept] = slot;
      frequencies[kept] = frequencies[i] as number;
      epochs[kept] = epochs[i] as number;
      kept++;
    }
    this.size = kept;
    if (this.slots.length > INITIAL_CAPACITY && kept * 4 < this.slots.length)
      this.resize(Math.max(INITIAL_CAPACITY, kept * 2));
  }

  private resize(capacity: number): void {
    const slots = new Int32Array(capacity);
    slots.set(this.slots.subarray(0, this.size));
    const frequencies = new Float64Array(capacity);
    frequencies.set(this.frequencies.subarray(0, this.size));
    const epochs = new Uint32Array(capacity);
    epochs.set(this.epochs.subarray(0, this.size));
    this.slots = slots;
    this.frequencies = frequencies;
    this.epochs = epochs;
  }
}
