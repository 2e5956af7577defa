import { closeSync, openSync, writeSync } from 'node:fs';
import type { TimeSlice } from '@memgate/core/history/time-slice';
import { readUpToAsync } from './durable-files.ts';
import type { LexicalPostings } from './lexical.ts';
import { MAX_LINKS, type SnapshotChains } from './slot-chains.ts';

/**
 * A snapshot's lexical postings, binary (little-endian): `MGLX`, version, slot count, term count; each slot's length
 * (float64); the namespace's distinct frequencies (count, then float64 each: FrequencyTable); then per term its id,
 * posting count and kind, the slots (int32) and their frequencies: codes into that table (uint16, kind 0) or the
 * values (float64, kind 1). A frequency is negative when only neighbours hold the term. Version 1 had no table and
 * float64 frequencies everywhere (12 bytes a posting, 6 now); it is still read. Version 3 adds after the lengths each
 * slot's chain (slot-chains.ts: its kind (uint8), its links (MAX_LINKS int32 slots, -1 for none), their weight codes
 * (MAX_LINKS uint8)) and the weights (count, then float64 each), and per term, after its kind, what its holders hold
 * (uint32, holdingUnits): a SPLIT slot's postings hold its own counts, so a list no longer adds up to it. Version 2
 * is still read (no chains: every slot's postings hold its merged frequencies). Written and read through a small
 * buffer, so neither side holds the file whole (at 100k chunks it was ~190 MB before chains).
 */
const MAGIC = 0x584c474d; // "MGLX"
const VERSION = 3;
const CODES = 0;
const VALUES = 1;
const BUFFER_BYTES = 1 << 20;
/** Slots whose chains are restored between two looks at the clock (~0.4 ms per 1,000). */
const CHAIN_SLOTS = 1024;

export function writeLexicalFile(path: string, lexical: LexicalPostings, slotCount: number): void {
  const fd = openSync(path, 'w');
  try {
    const out = new BufferedWriter(fd);
    out.write(Uint32Array.of(MAGIC, VERSION, slotCount, lexical.liveTermCount()));
    out.write(lexical.lengthsUpTo(slotCount));
    const chains = lexical.chainsUpTo(slotCount);
    out.write(chains.kinds);
    out.write(chains.links);
    out.write(chains.weightCodes);
    out.write(Uint32Array.of(chains.weights.length));
    out.write(chains.weights);
    const frequencies = lexical.frequencies();
    out.write(Uint32Array.of(frequencies.length));
    out.write(frequencies);
    // One term's postings at a time: a copy of them all would be as large as the postings.
    for (const [term, slots, held, heldUnits] of lexical.terms()) {
      out.write(Uint32Array.of(term, slots.length, held instanceof Uint16Array ? CODES : VALUES, heldUnits));
      out.write(slots);
      out.write(held);
    }
    out.flush();
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads a file `writeLexicalFile` wrote (this version, the second or the first) into an empty `lexical`, off the event
 * loop, giving the loop back between two terms or ranges of chains whenever `slice` is used up (~0.3 s of CPU at
 * 100k chunks).
 */
export async function readLexicalFile(
  path: string,
  lexical: LexicalPostings,
  slotCount: number,
  slice: TimeSlice,
): Promise<void> {
  const fd = openSync(path, 'r');
  try {
    const input = new BufferedReader(fd);
    const [magic, version, slots, termCount] = await input.next(new Uint32Array(4));
    if (magic !== MAGIC || !(version === 1 || version === 2 || version === VERSION) || slots !== slotCount) {
      throw new Error(`lexical snapshot ${path} is not version 1 to ${VERSION} for ${slotCount} slots`);
    }
    const lengths = await input.next(new Float64Array(slotCount));
    let chains: SnapshotChains | undefined;
    if (version === VERSION) {
      const kinds = await input.next(new Uint8Array(slotCount));
      const links = await input.next(new Int32Array(slotCount * MAX_LINKS));
      const weightCodes = await input.next(new Uint8Array(slotCount * MAX_LINKS));
      const weights = await input.next(new Float64Array((await input.next(new Uint32Array(1)))[0] as number));
      chains = { kinds, links, weightCodes, weights };
    }
    const frequencies =
      version === 1
        ? new Float64Array(0)
        : await input.next(new Float64Array((await input.next(new Uint32Array(1)))[0] as number));
    lexical.startRestore(lengths, frequencies);
    const header = new Uint32Array((version as number) + 1); // term, count, then kind (2), then what it holds (3)
    for (let i = 0; i < (termCount as number); i++) {
      if (!input.holds(header.byteLength)) await input.fill(header.byteLength);
      const [term, count, kind, heldUnits] = input.read(header) as unknown as [number, number, number?, number?];
      const slots = new Int32Array(count);
      const held = kind === CODES ? new Uint16Array(count) : new Float64Array(count);
      if (!input.holds(slots.byteLength + held.byteLength)) await input.fill(slots.byteLength + held.byteLength);
      lexical.restoreTerm(term, input.read(slots), input.read(held), heldUnits);
      if (slice.due()) await slice.giveWay();
    }
    for (let from = 0; chains && from < slotCount; from += CHAIN_SLOTS) {
      lexical.restoreChains(chains, slotCount, from, Math.min(slotCount, from + CHAIN_SLOTS));
      if (slice.due()) await slice.giveWay();
    }
    lexical.endRestore(slotCount);
  } finally {
    closeSync(fd);
  }
}

type Typed = Uint32Array | Int32Array | Uint16Array | Uint8Array | Float64Array;

class BufferedWriter {
  private readonly buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  private used = 0;
  constructor(private readonly fd: number) {}

  write(array: Typed): void {
    const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    let from = 0;
    while (from < bytes.length) {
      if (this.used === this.buffer.length) this.flush();
      const take = Math.min(bytes.length - from, this.buffer.length - this.used);
      this.buffer.set(bytes.subarray(from, from + take), this.used);
      this.used += take;
      from += take;
    }
  }

  flush(): void {
    let written = 0;
    while (written < this.used) written += writeSync(this.fd, this.buffer, written, this.used - written);
    this.used = 0;
  }
}

/** Reads a file front to back through a buffer, filled off the event loop; the reads themselves copy from it. */
class BufferedReader {
  private buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  private start = 0;
  private end = 0;
  private position = 0;
  constructor(private readonly fd: number) {}

  /** Whether the next `bytes` bytes are in the buffer. */
  holds(bytes: number): boolean {
    return this.end - this.start >= bytes;
  }

  /** Brings the next `bytes` bytes into the buffer (grown if it is smaller); a file that ends first is an error. */
  async fill(bytes: number): Promise<void> {
    const kept = this.end - this.start;
    const buffer = bytes > this.buffer.length ? Buffer.allocUnsafe(bytes) : this.buffer;
    this.buffer.copy(buffer, 0, this.start, this.end);
    this.buffer = buffer;
    this.start = 0;
    this.end = kept;
    while (this.end < bytes) {
      const read = await readUpToAsync(this.fd, buffer, this.end, buffer.length - this.end, this.position);
      if (read === 0) throw new Error('lexical snapshot ends early');
      this.end += read;
      this.position += read;
    }
  }

  /** Fills `array` with the next bytes of the file, which the buffer must hold (`holds`, `fill`). */
  read<T extends Typed>(array: T): T {
    const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    bytes.set(this.buffer.subarray(this.start, this.start + bytes.length));
    this.start += bytes.length;
    return array;
  }

  /** `read`, filling the buffer first if it must. */
  async next<T extends Typed>(array: T): Promise<T> {
    if (!this.holds(array.byteLength)) await this.fill(array.byteLength);
    return this.read(array);
  }
}
