import { closeSync, fsyncSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { TenantKey } from '@memgate/core';
import { NamespaceStore, type SlotRecord } from './store.ts';

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

export function readManifest(dir: string): Manifest | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as Manifest;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Replaces the manifest atomically (write aside, fsync, rename): a crash leaves the old or the new one, never half. */
export function writeManifest(dir: string, manifest: Manifest): void {
  const temporary = join(dir, `${MANIFEST}.tmp`);
  writeDurably(temporary, JSON.stringify(manifest));
  renameSync(temporary, join(dir, MANIFEST));
}

/**
 * Writes generation `generation` (graph, vectors, records). It becomes current only when the caller then points
 * the manifest at it, so a crash mid-snapshot leaves the previous generation and its journal intact.
 */
export function writeSnapshot(dir: string, generation: number, store: NamespaceStore): void {
  // usearch 2.21 corrupts memory when an index saved with no live vectors is loaded and then added to:
  // an empty namespace saves no graph, and loading starts a fresh one.
  if (store.size > 0) {
    store.hnsw.save(graphPath(dir, generation));
    syncFile(graphPath(dir, generation));
  }
  const slotCount = store.slots.length;
  const vectors = store.arena.subarray(0, slotCount * store.dimension);
  writeDurably(vectorsPath(dir, generation), Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength));
  const records: [number, SlotRecord][] = [];
  store.slots.forEach((record, slot) => {
    if (record) records.push([slot, record]);
  });
  writeDurably(recordsPath(dir, generation), JSON.stringify({ slotCount, records }));
  writeDurably(journalPath(dir, generation), '');
}

/** Loads generation `generation` (0 has no snapshot: an empty store). */
export function readSnapshot(dir: string, generation: number, dimension: number): NamespaceStore {
  if (generation === 0) return new NamespaceStore(dimension);
  const { slotCount, records } = JSON.parse(readFileSync(recordsPath(dir, generation), 'utf8')) as {
    slotCount: number;
    records: [number, SlotRecord][];
  };
  const store = new NamespaceStore(dimension, Math.max(1024, slotCount));
  const bytes = readFileSync(vectorsPath(dir, generation));
  const vectors = new Float32Array(slotCount * dimension);
  Buffer.from(vectors.buffer).set(bytes.subarray(0, vectors.byteLength));
  for (const [slot, record] of records) {
    store.restore(slot, record, vectors.subarray(slot * dimension, (slot + 1) * dimension));
  }
  store.collectFreeSlots(slotCount);
  if (records.length > 0) {
    store.hnsw.load(graphPath(dir, generation));
    // The records are the truth: a graph that disagrees with them is rebuilt from the stored vectors.
    if (store.hnsw.size() !== records.length) store.rebuildGraph();
  }
  return store;
}

/** Removes the files of every generation but `keep` (older ones, and a newer one a crash left unfinished). */
export function removeOtherGenerations(dir: string, keep: number): void {
  for (const name of readdirSync(dir)) {
    const match = /^gen-(\d+)\./.exec(name);
    if (match && Number(match[1]) !== keep) rmSync(join(dir, name), { force: true });
  }
}

function writeDurably(path: string, data: string | Buffer): void {
  writeFileSync(path, data);
  syncFile(path);
}

function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
