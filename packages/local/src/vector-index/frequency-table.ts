import { decodeOwn } from './slot-chains.ts';
import { holdingUnits } from './term-postings.ts';

/** Codes fit a Uint16: a posting stores 2 bytes for its frequency instead of 8. */
const MAX_CODES = 1 << 16;

/**
 * The distinct term frequencies one namespace's postings hold, each once, exactly (float64 bits), with a 16-bit code
 * per value. The chunks' frequencies are own counts plus their neighbours' weighted counts (0.45, 0.15 per
 * occurrence), so few values recur: ~7,000 over the bench's 100k chunks (31.7M postings). A value is never dropped
 * (codes stay valid for the process's life); a namespace that meets more than 65,536 values stores the postings of a
 * term that needs one more as float64 (TermPostings.wide), still exact.
 */
export class FrequencyTable {
  values = new Float64Array(64);
  /** Each value's holdingUnits, precomputed: counting a list's document frequency reads one array. */
  units = new Uint16Array(64);
  /** Each positive value read as a SPLIT slot's own posting (slot-chains.ts): its occurrences, and those it lends. */
  owns = new Float64Array(64);
  lents = new Float64Array(64);
  size = 0;
  private readonly codes = new Map<number, number>();

  /** The code of `frequency`, added if new; -1 when the table is full and does not hold it. */
  codeOf(frequency: number): number {
    const known = this.codes.get(frequency);
    if (known !== undefined) return known;
    if (this.size === MAX_CODES) return -1;
    if (this.size === this.values.length) {
      const capacity = Math.min(MAX_CODES, this.size * 2);
      const values = new Float64Array(capacity);
      values.set(this.values);
      const units = new Uint16Array(capacity);
      units.set(this.units);
      const owns = new Float64Array(capacity);
      owns.set(this.owns);
      const lents = new Float64Array(capacity);
      lents.set(this.lents);
      this.values = values;
      this.units = units;
      this.owns = owns;
      this.lents = lents;
    }
    const code = this.size++;
    this.values[code] = frequency;
    this.units[code] = holdingUnits(frequency);
    if (frequency > 0) [this.owns[code], this.lents[code]] = decodeOwn(frequency);
    this.codes.set(frequency, code);
    return code;
  }
}
