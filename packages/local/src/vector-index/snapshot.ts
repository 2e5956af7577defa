import { readdirSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TenantKey, VectorMetadata } from '@memgate/core';
import type { TimeSlice } from '@memgate/core/history/time-slice';
import { readJsonIfPresent, replaceFile, syncFile, writeDurably } from './durable-files.ts';
import { readLexicalFile, writeLexicalFile } from './lexical-file.ts';
import { NamespaceStore, type SlotInput } from './store.ts';

/** `namespace.json`: which namespace a directory holds and which generation of files is current. */
export interface Manifest {
  namespace: TenantKey;
  dimension: number;
  generation: number;
}

export const MANIFEST = 'namespace.json';

export function journalPath(dir: string, generation: number): string {
  return join(dir, `gen-${generation}.log`);
}

const graphPath = (dir: string, generation: number) => join(dir, `gen-${generation}.usearch`);
const vectorsPath = (dir: string, generation: number) => join(dir, `gen-${generation}.vectors`);
const recordsPath = (dir: string, generation: number) => join(dir, `gen-${generation}.records.json`);
const lexicalPath = (dir: string, generation: number) => join(dir, `gen-${generation}.lexical`);

/**
 * `records.json`. Format 3: JSON lines, so loading parses it a line at a time (one JSON.parse of the whole file was
 * ~50 ms of CPU at 100k chunks, the longest hold of a load): a header (`RecordsHeader`), then `metadataLines` lines
 * of distinct metadata, then lines of records (per slot its id and its metadata's position), `LINE_ITEMS` a line;
 * the terms are in `gen-N.lexical` (lexical-file.ts). Format 2, still read: the same in one JSON object. Format 1
 * (no `format`, still read): each slot's record with its terms.
 */
interface RecordsHeader {
  format: 3;
  slotCount: number;
  metadataLines: number;
}

type RecordRow = [slot: number, id: string, metadata: number];

interface RecordsFileV2 {
  format: 2;
  slotCount: number;
  metadata: VectorMetadata[];
  records: RecordRow[];
}

interface RecordsFileV1 {
  format?: undefined;
  slotCount: number;
  records: [number, SlotInput][];
}

/** Metadata or records per line of a records file (~80 KB of records: well under a millisecond to parse). */
const LINE_ITEMS = 1000;

export function readManifest(dir: string): Manifest | undefined {
  return readJsonIfPresent<Manifest>(join(dir, MANIFEST));
}

/** Replaces the manifest atomically: a crash leaves the old or the new one, never half. */
export function writeManifest(dir: string, manifest: Manifest): void {
  replaceFile(dir, MANIFEST, JSON.stringify(manifest));
}

/**
 * Writes generation `generation` (graph, vectors, lexical postings, records). It becomes current only when the caller then points
 * the manifest at it, so a crash mid-snapshot leaves the previous generation and its journal intact.
 */
export function writeSnapshot(dir: string, generation: number, store: NamespaceStore): void {
  // Vectors not in the graph yet are in the records and vectors only; loading stages them again (store.loadGraph).
  if (store.graph?.save(graphPath(dir, generation))) syncFile(graphPath(dir, generation));
  const slotCount = store.slots.length;
  store.vectors.save(vectorsPath(dir, generation), slotCount);
  writeLexicalFile(lexicalPath(dir, generation), store.lexical, slotCount);
  syncFile(lexicalPath(dir, generation));
  const metadata: VectorMetadata[] = [];
  const positions = new Map<VectorMetadata, number>();
  const records: RecordRow[] = [];
  store.slots.forEach((record, slot) => {
    if (!record) return;
    let position = positions.get(record.metadata);
    if (position === undefined) {
      position = metadata.push(record.metadata) - 1;
      positions.set(record.metadata, position);
    }
    records.push([slot, record.id, position]);
  });
  const header: RecordsHeader = { format: 3, slotCount, metadataLines: Math.ceil(metadata.length / LINE_ITEMS) };
  const lines = [JSON.stringify(header)];
  for (const list of [metadata, records]) {
    for (let at = 0; at < list.length; at += LINE_ITEMS) lines.push(JSON.stringify(list.slice(at, at + LINE_ITEMS)));
  }
  writeDurably(recordsPath(dir, generation), `${lines.join('\n')}\n`);
  writeDurably(journalPath(dir, generation), '');
  // Complete and durable: compact vectors read their exact values from it from now on (the old file goes next).
  store.vectors.savedTo(vectorsPath(dir, generation));
}

/**
 * Loads generation `generation` (0 has no snapshot: an empty store). `withGraph` false: its graph file, if any, is
 * not read; true with no graph file (written without one): every vector is staged for insertion, a rebuild. The files
 * are read off the event loop and the loop is given back whenever `slice` is used up, but for a native graph load
 * and, in a records file of format 2 or 1, its one JSON.parse (~50 ms of CPU at 100k chunks).
 */
export async function readSnapshot(
  dir: string,
  generation: number,
  dimension: number,
  withGraph: boolean,
  slice: TimeSlice,
): Promise<NamespaceStore> {
  if (generation === 0) return new NamespaceStore(dimension, undefined, withGraph);
  const bytes = await readFile(recordsPath(dir, generation));
  // Formats 1 and 2 are one JSON object on one line; format 3's first line is its header.
  const headerEnd = bytes.indexOf(10);
  const file = JSON.parse(bytes.toString('utf8', 0, headerEnd < 0 ? bytes.length : headerEnd)) as
    | RecordsHeader
    | RecordsFileV2
    | RecordsFileV1;
  const { slotCount } = file;
  const store = new NamespaceStore(dimension, Math.max(1024, slotCount), withGraph);
  try {
    if (file.format === undefined) {
      const vectors = new Float32Array(slotCount * dimension);
      Buffer.from(vectors.buffer).set((await readFile(vectorsPath(dir, generation))).subarray(0, vectors.byteLength));
      for (const [slot, record] of file.records) {
        store.restore(slot, record, vectors.subarray(slot * dimension, (slot + 1) * dimension));
        if (slice.due()) await slice.giveWay();
      }
    } else {
      await store.vectors.load(vectorsPath(dir, generation), slotCount, slice);
      if (file.format === 2) await restoreRecords(store, file.metadata, file.records, slice);
      else await restoreRecordLines(store, bytes, headerEnd + 1, file.metadataLines, slice);
      await readLexicalFile(lexicalPath(dir, generation), store.lexical, slotCount, slice);
    }
    store.collectFreeSlots(slotCount);
    store.loadGraph(graphPath(dir, generation));
    return store;
  } catch (error) {
    store.close();
    throw error;
  }
}

/** Format 3's lines from `start` of `bytes`: `metadataLines` of metadata, then records, each parsed on its own. */
async function restoreRecordLines(
  store: NamespaceStore,
  bytes: Buffer,
  start: number,
  metadataLines: number,
  slice: TimeSlice,
): Promise<void> {
  const metadata: VectorMetadata[] = [];
  for (
    let line = 0, end = bytes.indexOf(10, start);
    end >= 0;
    line++, start = end + 1, end = bytes.indexOf(10, start)
  ) {
    const items = JSON.parse(bytes.toString('utf8', start, end)) as VectorMetadata[] | RecordRow[];
    if (line < metadataLines) metadata.push(...(items as VectorMetadata[]));
    else await restoreRecords(store, metadata, items as RecordRow[], slice);
    if (slice.due()) await slice.giveWay();
  }
}

/** Restores each record (its vector and terms are loaded apart), giving the loop back whenever `slice` is used up. */
async function restoreRecords(
  store: NamespaceStore,
  metadata: readonly VectorMetadata[],
  records: readonly RecordRow[],
  slice: TimeSlice,
): Promise<void> {
  for (let i = 0; i < records.length; i++) {
    const [slot, id, position] = records[i] as RecordRow;
    store.restoreInPlace(slot, { id, metadata: metadata[position] as VectorMetadata });
    if (i % 64 === 63 && slice.due()) await slice.giveWay();
  }
}

/** Removes the files of every generation but `keep` (older ones, and a newer one a crash left unfinished). */
export function removeOtherGenerations(dir: string, keep: number): void {
  for (const name of readdirSync(dir)) {
    const match = /^gen-(\d+)\./.exec(name);
    if (match && Number(match[1]) !== keep) rmSync(join(dir, name), { force: true });
  }
}
