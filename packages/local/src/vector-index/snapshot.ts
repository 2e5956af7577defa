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
 * `records.json`. Format 2: each distinct metadata once, and per slot its id and metadata's position; the terms are
 * in `gen-N.lexical` (lexical-file.ts). Format 1 (no `format`): each slot's record with its terms, still read.
 */
interface RecordsFile {
  format: 2;
  slotCount: number;
  metadata: VectorMetadata[];
  records: [slot: number, id: string, metadata: number][];
}

interface RecordsFileV1 {
  slotCount: number;
  records: [number, SlotInput][];
}

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
  const records: RecordsFile['records'] = [];
  store.slots.forEach((record, slot) => {
    if (!record) return;
    let position = positions.get(record.metadata);
    if (position === undefined) {
      position = metadata.push(record.metadata) - 1;
      positions.set(record.metadata, position);
    }
    records.push([slot, record.id, position]);
  });
  const file: RecordsFile = { format: 2, slotCount, metadata, records };
  writeDurably(recordsPath(dir, generation), JSON.stringify(file));
  writeDurably(journalPath(dir, generation), '');
  // Complete and durable: compact vectors read their exact values from it from now on (the old file goes next).
  store.vectors.savedTo(vectorsPath(dir, generation));
}

/**
 * Loads generation `generation` (0 has no snapshot: an empty store). `withGraph` false: its graph file, if any, is
 * not read; true with no graph file (written without one): every vector is staged for insertion, a rebuild. The files
 * are read off the event loop and the loop is given back whenever `slice` is used up, but for two steps that are one
 * call each: parsing the records file (~50 ms at 100k chunks) and loading the graph file (native).
 */
export async function readSnapshot(
  dir: string,
  generation: number,
  dimension: number,
  withGraph: boolean,
  slice: TimeSlice,
): Promise<NamespaceStore> {
  if (generation === 0) return new NamespaceStore(dimension, undefined, withGraph);
  const text = await readFile(recordsPath(dir, generation), 'utf8');
  const file = JSON.parse(text) as RecordsFile | RecordsFileV1;
  const { slotCount } = file;
  const store = new NamespaceStore(dimension, Math.max(1024, slotCount), withGraph);
  try {
    if ('format' in file && file.format === 2) {
      await store.vectors.load(vectorsPath(dir, generation), slotCount, slice);
      for (const [i, [slot, id, position]] of file.records.entries()) {
        store.restoreInPlace(slot, { id, metadata: file.metadata[position] as VectorMetadata });
        if (i % 64 === 63 && slice.due()) await slice.giveWay();
      }
      await readLexicalFile(lexicalPath(dir, generation), store.lexical, slotCount, slice);
    } else {
      const legacy = file as RecordsFileV1;
      const bytes = await readFile(vectorsPath(dir, generation));
      const vectors = new Float32Array(slotCount * dimension);
      Buffer.from(vectors.buffer).set(bytes.subarray(0, vectors.byteLength));
      for (const [slot, record] of legacy.records) {
        store.restore(slot, record, vectors.subarray(slot * dimension, (slot + 1) * dimension));
        if (slice.due()) await slice.giveWay();
      }
    }
    store.collectFreeSlots(slotCount);
    store.loadGraph(graphPath(dir, generation));
    return store;
  } catch (error) {
    store.close();
    throw error;
  }
}

/** Removes the files of every generation but `keep` (older ones, and a newer one a crash left unfinished). */
export function removeOtherGenerations(dir: string, keep: number): void {
  for (const name of readdirSync(dir)) {
    const match = /^gen-(\d+)\./.exec(name);
    if (match && Number(match[1]) !== keep) rmSync(join(dir, name), { force: true });
  }
}
