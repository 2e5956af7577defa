import { closeSync, openSync, readSync, writeSync } from 'node:fs';
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

/** Reads a file `writeLexicalFile` wrote (this version, the second or the first) into an empty `lexical`. */
export function readLexicalFile(path: string, lexical: LexicalPostings, slotCount: number): void {
  const fd = openSync(path, 'r');
  try {
    const input = new BufferedReader(fd);
    const [magic, version, slots, termCount] = input.read(new Uint32Array(4));
    if (magic !== MAGIC || !(version === 1 || version === 2 || version === VERSION) || slots !== slotCount) {
      throw new Error(`lexical snapshot ${path} is not version 1 to ${VERSION} for ${slotCount} slots`);
    }
    const lengths = input.read(new Float64Array(slotCount));
    let chains: SnapshotChains | undefined;
    if (version === VERSION) {
      const kinds = input.read(new Uint8Array(slotCount));
      const links = input.read(new Int32Array(slotCount * MAX_LINKS));
      const weightCodes = input.read(new Uint8Array(slotCount * MAX_LINKS));
      const weights = input.read(new Float64Array(input.read(new Uint32Array(1))[0] as number));
      chains = { kinds, links, weightCodes, weights };
    }
    const frequencies =
      version === 1 ? new Float64Array(0) : input.read(new Float64Array(input.read(new Uint32Array(1))[0] as number));
    function* terms(): Generator<[number, Int32Array<ArrayBuffer>, Uint16Array | Float64Array, number | undefined]> {
      const header = new Uint32Array((version as number) + 1); // term, count, then kind (2), then what it holds (3)
      for (let i = 0; i < (termCount as number); i++) {
        const [term, count, kind, heldUnits] = input.read(header) as unknown as [number, number, number?, number?];
        const slots = input.read(new Int32Array(count));
        const held = input.read(kind === CODES ? new Uint16Array(count) : new Float64Array(count));
        yield [term, slots, held, heldUnits];
      }
    }
    lexical.restore(lengths, frequencies, terms(), chains);
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

class BufferedReader {
  private readonly buffer = Buffer.allocUnsafe(BUFFER_BYTES);
  private start = 0;
  private end = 0;
  constructor(private readonly fd: number) {}

  /** Fills `array` with the next bytes of the file; a file that ends first is an error. */
  read<T extends Typed>(array: T): T {
    const bytes = new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
    let filled = 0;
    while (filled < bytes.length) {
      if (this.start === this.end) {
        this.start = 0;
        this.end = readSync(this.fd, this.buffer, 0, this.buffer.length, null);
        if (this.end === 0) throw new Error('lexical snapshot ends early');
      }
      const take = Math.min(bytes.length - filled, this.end - this.start);
      bytes.set(this.buffer.subarray(this.start, this.start + take), filled);
      this.start += take;
      filled += take;
    }
    return array;
  }
}
