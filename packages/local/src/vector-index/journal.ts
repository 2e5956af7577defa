import { closeSync, fstatSync, ftruncateSync, openSync, readFileSync, writeSync } from 'node:fs';
import type { SparseValues, VectorItem, VectorMetadata } from '@memgate/core';

/** One logged batch: what `upsert` or `delete` was called with. */
export type JournalEntry = { op: 'upsert'; items: VectorItem[] } | { op: 'delete'; ids: string[] };

/**
 * Append-only log of the batches applied since the last snapshot. Each batch is one record
 * `[u32 header length][u32 vector bytes][JSON header (ids, metadata, terms)][float32 vectors]`, written with a single `write`, so a crash
 * leaves at most one torn record at the end, which `readJournal` drops (that batch never returned to its caller).
 */
export function encodeEntry(entry: JournalEntry, dimension: number): Buffer {
  const header =
    entry.op === 'upsert'
      ? {
          op: 'upsert',
          items: entry.items.map(({ id, metadata, terms, contextTerms }) => ({ id, metadata, terms, contextTerms })),
        }
      : { op: 'delete', ids: entry.ids };
  const json = Buffer.from(JSON.stringify(header), 'utf8');
  const vectorBytes = entry.op === 'upsert' ? entry.items.length * dimension * 4 : 0;
  const record = Buffer.allocUnsafe(8 + json.length + vectorBytes);
  record.writeUInt32LE(json.length, 0);
  record.writeUInt32LE(vectorBytes, 4);
  json.copy(record, 8);
  if (entry.op === 'upsert') {
    let offset = 8 + json.length;
    for (const item of entry.items) {
      const bytes = Buffer.from(item.values.buffer, item.values.byteOffset, item.values.byteLength);
      bytes.copy(record, offset);
      offset += dimension * 4;
    }
  }
  return record;
}

/** Reads every complete record; truncates a torn tail so later appends start on a record boundary. */
export function readJournal(path: string, dimension: number): JournalEntry[] {
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const entries: JournalEntry[] = [];
  let offset = 0;
  while (offset + 8 <= data.length) {
    const jsonLength = data.readUInt32LE(offset);
    const vectorBytes = data.readUInt32LE(offset + 4);
    const end = offset + 8 + jsonLength + vectorBytes;
    if (end > data.length) break;
    const header = JSON.parse(data.toString('utf8', offset + 8, offset + 8 + jsonLength)) as
      | {
          op: 'upsert';
          items: { id: string; metadata: VectorMetadata; terms?: SparseValues; contextTerms?: SparseValues }[];
        }
      | { op: 'delete'; ids: string[] };
    if (header.op === 'delete') entries.push(header);
    else {
      let at = offset + 8 + jsonLength;
      const items = header.items.map(({ id, metadata, terms, contextTerms }) => {
        // Copy into a fresh, aligned buffer: the record's offset in the file need not be a multiple of 4.
        const values = new Float32Array(dimension);
        Buffer.from(values.buffer).set(data.subarray(at, at + dimension * 4));
        at += dimension * 4;
        const item: VectorItem = { id, metadata, values };
        if (terms) item.terms = terms;
        if (contextTerms) item.contextTerms = contextTerms;
        return item;
      });
      entries.push({ op: 'upsert', items });
    }
    offset = end;
  }
  if (offset < data.length) {
    const fd = openSync(path, 'r+');
    try {
      ftruncateSync(fd, offset);
    } finally {
      closeSync(fd);
    }
  }
  return entries;
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
      let written = 0;
      while (written < record.length) written += writeSync(fd, record, written, record.length - written);
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
