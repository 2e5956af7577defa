import type { FrequencyTable } from './frequency-table.ts';

const INITIAL_CAPACITY = 4;
/** Dead postings a list may carry past a query before it is compacted: at most as many as live ones, and a few. */
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

/** Low bits of a posting's entry: its slot's epoch when written (LexicalPostings bumps it when the slot is removed). */
export const EPOCH_BITS = 8;
export const EPOCH_MASK = (1 << EPOCH_BITS) - 1;
/** Slots an entry can name (2^24): the arena of that many 512-dimension vectors alone would be 32 GiB. */
export const MAX_SLOTS = 2 ** (32 - EPOCH_BITS);

/** How many of the first `count` entries are in slot order. */
function sortedPrefix(entries: Uint32Array, count: number): number {
  let at = 1;
  while (at < count && (entries[at] as number) >>> EPOCH_BITS >= (entries[at - 1] as number) >>> EPOCH_BITS) at++;
  return Math.min(at, count);
}

/** Which postings are live: a posting is when its epoch is still its slot's and its slot is counted. */
export interface Liveness {
  epochs: Uint8Array;
  /** Each slot's length; 0 for a slot not counted (removed or never added). */
  lengths: Float64Array;
}

function isLive(entry: number, { epochs, lengths }: Liveness): boolean {
  const slot = entry >>> EPOCH_BITS;
  return (entry & EPOCH_MASK) === epochs[slot] && (lengths[slot] as number) > 0;
}

/**
 * One term's postings in typed arrays, in the order they were added: an entry (slot << 8 | the slot's epoch when
 * written, 4 bytes) and a frequency code (FrequencyTable, 2 bytes; the frequency is negated when only the slot's
 * neighbours hold the term; a SPLIT slot's own posting holds its own count, term-walk.ts). 6 bytes a posting, against
 * 16 with the slot, a float64 frequency and a 32-bit epoch.
 * Removing a slot bumps its epoch instead of touching the lists it is in (LexicalPostings): a posting whose epoch is
 * no longer its slot's is dead and skipped. `live` and `heldUnits` are exact when `countedAt` is the namespace's
 * count of removals; a list is recounted (and compacted when mostly dead) before its statistics are read.
 */
export class TermPostings {
  entries = new Uint32Array(INITIAL_CAPACITY);
  /** Frequency codes; undefined once the list holds a value the full table has no code for (then `wide`). */
  codes: Uint16Array | undefined = new Uint16Array(INITIAL_CAPACITY);
  wide: Float64Array | undefined;
  /** Postings written, live or dead. */
  size = 0;
  /** Live postings (exact when counted, see above). */
  live = 0;
  /**
   * What its holders hold, summed in holdingUnits (LexicalPostings keeps it: a slot may hold the term by a posting
   * of its own, a stored context posting, both, or only through its neighbours' postings).
   */
  heldUnits = 0;
  /**
   * Leading postings in slot order (non-decreasing slots): a query reads its lists in slot order (lexical-sweep.ts),
   * so a list appended out of order (a reused slot) is put in order once, by `inSlotOrder`, before it is read.
   */
  sortedUpTo = 0;

  /** The first posting of `slot`, the list being in slot order (its size if none). */
  firstOf(slot: number): number {
    let low = 0;
    let high = this.size;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((this.entries[middle] as number) >>> EPOCH_BITS < slot) low = middle + 1;
      else high = middle;
    }
    return low;
  }

  constructor(public countedAt: number) {}

  /** The term's document frequency: each live posting counts as much as its slot holds the term (at most 1). */
  get documentFrequency(): number {
    return this.heldUnits / HOLDING_UNITS;
  }

  /**
   * A list loaded from a snapshot: these postings (slot order), live at epoch 0, as codes or exact frequencies, with
   * what they hold (`heldUnits`; undefined: one posting per holder, each holding its value, as before chains).
   * It takes `slots` over: they become its entries in place (a copy was ~36 MB of garbage per 100k-chunk load).
   */
  static of(
    slots: Int32Array<ArrayBuffer>,
    frequencies: Uint16Array | Float64Array,
    table: FrequencyTable,
    heldUnits: number | undefined,
  ): TermPostings {
    const postings = new TermPostings(0);
    const count = slots.length;
    const entries = new Uint32Array(slots.buffer, slots.byteOffset, count);
    for (let i = 0; i < count; i++) entries[i] = (entries[i] as number) * (EPOCH_MASK + 1);
    postings.entries = entries;
    let units = 0;
    if (frequencies instanceof Uint16Array) {
      postings.codes = frequencies;
      for (const code of frequencies) units += table.units[code] as number;
      postings.size = postings.live = count;
    } else {
      postings.codes = new Uint16Array(count);
      for (const frequency of frequencies) {
        postings.append(-1, 0, frequency, table);
        units += holdingUnits(frequency);
      }
    }
    postings.heldUnits = heldUnits ?? units;
    postings.sortedUpTo = sortedPrefix(entries, count);
    return postings;
  }

  /** The frequency of posting `i`. */
  frequencyAt(i: number, table: FrequencyTable): number {
    return this.wide ? (this.wide[i] as number) : (table.values[(this.codes as Uint16Array)[i] as number] as number);
  }

  /** Appends a posting; `slot` -1 keeps the entry already there (`of`). */
  append(slot: number, epoch: number, frequency: number, table: FrequencyTable): void {
    if (this.size === this.entries.length) this.resize(this.size + Math.max(INITIAL_CAPACITY, this.size >> 2));
    if (slot >= 0) {
      const entry = slot * (EPOCH_MASK + 1) + epoch;
      // In slot order while each slot is at least the last one's (one slot's postings may follow each other).
      if (
        this.sortedUpTo === this.size &&
        (this.size === 0 || entry >>> EPOCH_BITS >= (this.entries[this.size - 1] as number) >>> EPOCH_BITS)
      )
        this.sortedUpTo++;
      this.entries[this.size] = entry;
    }
    if (this.codes) {
      const code = table.codeOf(frequency);
      if (code >= 0) this.codes[this.size] = code;
      else this.widen(table);
    }
    if (this.wide) this.wide[this.size] = frequency;
    this.size++;
    this.live++;
  }

  /** Counts the live postings; compacts the list when `compactAny` or when it is mostly dead. */
  recount(liveness: Liveness, compactAny: boolean): void {
    const { entries } = this;
    let live = 0;
    for (let i = 0; i < this.size; i++) if (isLive(entries[i] as number, liveness)) live++;
    this.live = live;
    const dead = this.size - live;
    if (dead > 0 && (compactAny || dead > live + SLACK)) this.compact(liveness);
  }

  /**
   * Puts the postings in slot order, keeping the order of one slot's postings (the last own one wins in a walk): the
   * postings after the sorted prefix (a reused slot's, appended since) are sorted and merged into it.
   */
  inSlotOrder(): void {
    const { size, sortedUpTo } = this;
    if (sortedUpTo >= size) return;
    const { entries, codes, wide } = this;
    const slotAt = (i: number) => (entries[i] as number) >>> EPOCH_BITS;
    const tail = Array.from({ length: size - sortedUpTo }, (_, i) => sortedUpTo + i);
    tail.sort((a, b) => slotAt(a) - slotAt(b) || a - b);
    const order = new Int32Array(size);
    let i = 0;
    let j = 0;
    for (let at = 0; at < size; at++) {
      const fromPrefix = j >= tail.length || (i < sortedUpTo && slotAt(i) <= slotAt(tail[j] as number));
      order[at] = fromPrefix ? i++ : (tail[j++] as number);
    }
    const reorder = <T extends Uint32Array | Uint16Array | Float64Array>(array: T): void => {
      const copy = array.slice(0, size);
      for (let at = 0; at < size; at++) array[at] = copy[order[at] as number] as number;
    };
    reorder(entries);
    if (codes) reorder(codes);
    if (wide) reorder(wide);
    this.sortedUpTo = size;
  }

  /** The live postings (recounted first), sorted by slot: slots, and codes or exact frequencies. */
  liveInSlotOrder(liveness: Liveness): [slots: Int32Array<ArrayBuffer>, frequencies: Uint16Array | Float64Array] {
    const slots = new Int32Array(this.live);
    const codes = this.codes ? new Uint16Array(this.live) : undefined;
    const wide = this.wide ? new Float64Array(this.live) : undefined;
    let kept = 0;
    let sorted = true;
    for (let i = 0; i < this.size; i++) {
      const entry = this.entries[i] as number;
      const slot = entry >>> EPOCH_BITS;
      if (!isLive(entry, liveness)) continue;
      if (kept > 0 && slot < (slots[kept - 1] as number)) sorted = false;
      slots[kept] = slot;
      if (codes) codes[kept] = (this.codes as Uint16Array)[i] as number;
      else (wide as Float64Array)[kept] = (this.wide as Float64Array)[i] as number;
      kept++;
    }
    const frequencies = (codes ?? wide) as Uint16Array | Float64Array;
    if (sorted) return [slots, frequencies];
    const order = Array.from(slots.keys()).sort((a, b) => (slots[a] as number) - (slots[b] as number));
    const reordered = codes ? new Uint16Array(kept) : new Float64Array(kept);
    for (const [at, i] of order.entries()) reordered[at] = frequencies[i] as number;
    return [Int32Array.from(order, (i) => slots[i] as number), reordered];
  }

  /** Drops dead postings, keeping the order of the others. */
  private compact(liveness: Liveness): void {
    const { entries, codes, wide } = this;
    let kept = 0;
    for (let i = 0; i < this.size; i++) {
      const entry = entries[i] as number;
      if (!isLive(entry, liveness)) continue;
      entries[kept] = entry;
      if (codes) codes[kept] = codes[i] as number;
      if (wide) wide[kept] = wide[i] as number;
      kept++;
    }
    this.size = kept;
    this.sortedUpTo = sortedPrefix(entries, kept);
    if (this.entries.length > INITIAL_CAPACITY && kept * 4 < this.entries.length)
      this.resize(Math.max(INITIAL_CAPACITY, kept + (kept >> 2)));
  }

  /** Stores the list's frequencies as float64 from now on (the table has no code for a new value). */
  private widen(table: FrequencyTable): void {
    const wide = new Float64Array(this.entries.length);
    for (let i = 0; i < this.size; i++) wide[i] = this.frequencyAt(i, table);
    this.wide = wide;
    this.codes = undefined;
  }

  /** Grows by a quarter, not double: the postings are most of a namespace's memory after its vectors. */
  private resize(capacity: number): void {
    const entries = new Uint32Array(capacity);
    entries.set(this.entries.subarray(0, this.size));
    this.entries = entries;
    if (this.codes) {
      const codes = new Uint16Array(capacity);
      codes.set(this.codes.subarray(0, this.size));
      this.codes = codes;
    }
    if (this.wide) {
      const wide = new Float64Array(capacity);
      wide.set(this.wide.subarray(0, this.size));
      this.wide = wide;
    }
  }
}
