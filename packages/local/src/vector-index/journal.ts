import { closeSync, fstatSync, ftruncateSync, openSync } from 'node:fs';
import { endianness } from 'node:os';
import type { SparseValues, VectorChain, VectorItem, VectorMetadata } from '@memgate/core';
import { readUpToAsync, writeAll } from './durable-files.ts';

/** One logged batch: what `upsert` or `delete` was called with. */
export type JournalEntry = { op: 'upsert'; items: VectorItem[] } | { op: 'delete'; ids: string[] };

/**
 * Append-only log of the batches applied since the last snapshot. Each batch is one record
 * `[u32 header length][u32 binary bytes][JSON header][binary]`, written with a single `write`, so a crash leaves at
 * most one torn record at the end, which `readJournal` drops (that batch never returned to its caller). An upsert's
 * header holds each item's id, metadata, term counts and chain (VectorChain, when it has one: a record without
 * it reads as before chains); the binary part its float32 vector, then the term ids
 * (uint32) and frequencies (float64) of its terms and contextTerms, in that order. (Records written before version 2
 * carried the terms in the JSON header; they are still read.) With `into`, the record is written there when it fits
 * (see RecordBuffer) and is valid until the next encoding into it.
 */
export function encodeEntry(entry: JournalEntry, dimension: number, into?: RecordBuffer): Buffer {
  if (entry.op === 'delete') {
    return record(Buffer.from(JSON.stringify({ op: 'delete', ids: entry.ids }), 'utf8'), 0, into);
  }
  let termBytes = 0;
  const items = entry.items.map(({ id, metadata, terms, contextTerms, chain }) => {
    const counts = [terms?.indices.length ?? -1, contextTerms?.indices.length ?? -1] as const;
    termBytes += (Math.max(0, counts[0]) + Math.max(0, counts[1])) * 12;
    return { id, metadata, terms: counts[0], contextTerms: counts[1], ...(chain ? { chain } : {}) };
  });
  const json = Buffer.from(JSON.stringify({ op: 'upsert', v: 2, items }), 'utf8');
  const vectorBytes = entry.items.length * dimension * 4;
  const out = record(json, vectorBytes + termBytes, into);
  let offset = 8 + json.length;
  for (const item of entry.items) {
    Buffer.from(item.values.buffer, item.values.byteOffset, item.values.byteLength).copy(out, offset);
    offset += dimension * 4;
  }
  for (const { terms, contextTerms } of entry.items) {
    if (terms) offset = writeSparse(out, offset, terms);
    if (contextTerms) offset = writeSparse(out, offset, contextTerms);
  }
  return out;
}

const LITTLE_ENDIAN = endianness() === 'LE';

/** Scratch of `writeSparse`, grown to the longest sparse vector written. */
let scratch = new ArrayBuffer(8 * 1024);

/**
 * A sparse vector's ids (uint32) then frequencies (float64), little-endian, from `offset`; where it ends. On a
 * little-endian machine both arrays go through a typed scratch copied whole: a Buffer write call per number was ~90%
 * of encoding a batch (two per term, ~300 terms a chunk with its neighbours').
 */
function writeSparse(out: Buffer, offset: number, { indices, values }: SparseValues): number {
  const count = indices.length;
  if (!LITTLE_ENDIAN) {
    for (let i = 0; i < count; i++) offset = out.writeUInt32LE(indices[i] as number, offset);
    for (let i = 0; i < count; i++) offset = out.writeDoubleLE(values[i] as number, offset);
    return offset;
  }
  if (scratch.byteLength < count * 8) scratch = new ArrayBuffer(count * 8);
  const ids = new Uint32Array(scratch, 0, count);
  for (let i = 0; i < count; i++) ids[i] = indices[i] as number;
  out.set(new Uint8Array(scratch, 0, count * 4), offset);
  const frequencies = new Float64Array(scratch, 0, count);
  for (let i = 0; i < count; i++) frequencies[i] = values[i] as number;
  out.set(new Uint8Array(scratch, 0, count * 8), offset + count * 4);
  return offset + count * 12;
}

/**
 * Memory a writer encodes its records into, one after another: an add's record is ~6 KB a chunk, and fresh memory
 * for each cost a third of encoding it (page faults). Records above MAX_REUSED_BYTES get their own, so a huge batch
 * does not stay allocated.
 */
export class RecordBuffer {
  bytes = Buffer.allocUnsafe(0);
}

const MAX_REUSED_BYTES = 4 * 1024 * 1024;

function record(json: Buffer, binaryBytes: number, into: RecordBuffer | undefined): Buffer {
  const length = 8 + json.length + binaryBytes;
  let out: Buffer;
  if (!into || length > MAX_REUSED_BYTES) out = Buffer.allocUnsafe(length);
  else {
    if (into.bytes.length < length)
      into.bytes = Buffer.allocUnsafe(Math.min(MAX_REUSED_BYTES, Math.max(length, 2 * into.bytes.length)));
    out = into.bytes.subarray(0, length);
  }
  out.writeUInt32LE(json.length, 0);
  out.writeUInt32LE(binaryBytes, 4);
  json.copy(out, 8);
  return out;
}

/**
 * Each complete record, read one at a time (a journal grows to half its namespace's vector bytes before a snapshot,
 * ~100 MB at 100k chunks, and was read whole) through a buffer of `chunkBytes` (grown for a larger record), off the
 * event loop; once they are all read, a torn tail is cut so later appends start on a record boundary. Consume it
 * whole: the cut is made after the last record.
 */
export async function* readJournal(
  path: string,
  dimension: number,
  chunkBytes = 1 << 20,
): AsyncGenerator<JournalEntry> {
  let fd: number;
  try {
    fd = openSync(path, 'r+');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    const size = fstatSync(fd).size;
    // The file's bytes from `start`, `filled` of them; entries copy what they keep out of it.
    let data = Buffer.allocUnsafe(Math.min(chunkBytes, size));
    let start = 0;
    let filled = 0;
    /** Makes the bytes [at, at + length) held in `data` (the file has them). */
    const hold = async (at: number, length: number) => {
      if (at + length <= start + filled) return;
      if (data.length < length) data = Buffer.allocUnsafe(Math.max(length, data.length * 2));
      start = at;
      filled = await readUpToAsync(fd, data, 0, Math.min(data.length, size - at), at);
      if (filled < length) throw new Error(SHORT_FILE);
    };
    let offset = 0;
    while (offset + 8 <= size) {
      await hold(offset, 8);
      const jsonLength = data.readUInt32LE(offset - start);
      const binaryBytes = data.readUInt32LE(offset - start + 4);
      const length = 8 + jsonLength + binaryBytes;
      if (offset + length > size) break;
      await hold(offset, length);
      const at = offset - start + 8;
      const header = JSON.parse(data.toString('utf8', at, at + jsonLength)) as Header;
      if (header.op === 'delete') yield header;
      else yield { op: 'upsert', items: itemsOf(header, data, at + jsonLength, dimension) };
      offset += length;
    }
    if (offset < size) ftruncateSync(fd, offset);
  } finally {
    closeSync(fd);
  }
}

const SHORT_FILE = 'journal: file shorter than its size';

type Header =
  | { op: 'delete'; ids: string[] }
  | {
      op: 'upsert';
      v: 2;
      items: { id: string; metadata: VectorMetadata; terms: number; contextTerms: number; chain?: VectorChain }[];
    }
  | {
      op: 'upsert';
      v?: undefined;
      items: { id: string; metadata: VectorMetadata; terms?: SparseValues; contextTerms?: SparseValues }[];
    };

/** An upsert record's items: vectors from `at`, then (version 2) each item's terms after all the vectors. */
function itemsOf(header: Exclude<Header, { op: 'delete' }>, data: Buffer, at: number, dimension: number): VectorItem[] {
  let termsAt = at + header.items.length * dimension * 4;
  const sparse = (count: number): SparseValues | undefined => {
    if (count < 0) return undefined;
    const indices: number[] = new Array(count);
    const values: number[] = new Array(count);
    for (let i = 0; i < count; i++) indices[i] = data.readUInt32LE(termsAt + i * 4);
    termsAt += count * 4;
    for (let i = 0; i < count; i++) values[i] = data.readDoubleLE(termsAt + i * 8);
    termsAt += count * 8;
    return { indices, values };
  };
  return header.items.map((written, i) => {
    // Copy into a fresh, aligned buffer: the record's offset in the file need not be a multiple of 4.
    const values = new Float32Array(dimension);
    Buffer.from(values.buffer).set(data.subarray(at + i * dimension * 4, at + (i + 1) * dimension * 4));
    const item: VectorItem = { id: written.id, metadata: written.metadata, values };
    const terms = header.v === 2 ? sparse(written.terms as number) : (written.terms as SparseValues | undefined);
    const contextTerms =
      header.v === 2 ? sparse(written.contextTerms as number) : (written.contextTerms as SparseValues | undefined);
    if (terms) item.terms = terms;
    if (contextTerms) item.contextTerms = contextTerms;
    const chain = 'chain' in written ? written.chain : undefined;
    if (chain) item.chain = chain;
    return item;
  });
}

/** An open journal file, appended to synchronously (one `write` per batch). */
export interface JournalWriter {
  append(record: Buffer): void;
  readonly bytes: number;
  close(): void;
}

export function openJournal(path: string): JournalWriter {
  const fd = openSync(path, 'a');
  let bytes = fstatSync(fd).size;
  return {
    append(record) {
      writeAll(fd, record);
      bytes += record.length;
    },
    get bytes() {
      return bytes;
    },
    close() {
      closeSync(fd);
    },
  };
}
