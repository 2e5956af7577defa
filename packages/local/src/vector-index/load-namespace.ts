import { createTimeSlice } from '@memgate/core/history/time-slice';
import { type JournalEntry, type JournalWriter, openJournal, readJournal } from './journal.ts';
import { ShownTexts } from './shown.ts';
import { journalPath, type Manifest, readSnapshot, removeOtherGenerations } from './snapshot.ts';
import type { NamespaceStore } from './store.ts';

/** A namespace held in memory (index.ts). */
export interface OpenNamespace {
  dir: string;
  manifest: Manifest;
  store: NamespaceStore;
  journal: JournalWriter;
  /** Texts and confirmations, in their own file (shown.ts). */
  shown: ShownTexts;
  /** Date.now() of its last use. */
  usedAt: number;
}

export interface LoadOptions {
  /** Keep an HNSW graph (LocalVectorIndexOptions.denseGraph). */
  denseGraph: boolean;
  /** Vectors left outside the graph once loaded; the rest of those the journal staged are inserted while loading. */
  maxUngraphed: number;
}

/** Graph inserts between two looks at the clock: ~2-4 ms of work at 10k vectors (graphing.ts). */
const GRAPH_BATCH = 8;

/** Applies one journal entry to the namespace's memory. */
export function applyEntry(store: NamespaceStore, entry: JournalEntry): void {
  if (entry.op === 'upsert') store.upsert(entry.items);
  else store.delete(entry.ids);
}

/**
 * Loads the namespace in `dir` (snapshot, then journal replay, then its shown texts) without holding the event loop:
 * the files are read off it and every long loop gives it back each ~10 ms, so other tenants' requests and /health are
 * served while a large one loads (~2 s of CPU at 100k chunks). What stays whole: the records file's JSON.parse,
 * a native graph load, and one journal entry's upsert (one batch as it was written).
 */
export async function loadNamespace(
  dir: string,
  manifest: Manifest,
  { denseGraph, maxUngraphed }: LoadOptions,
): Promise<OpenNamespace> {
  const slice = createTimeSlice();
  removeOtherGenerations(dir, manifest.generation);
  const store = await readSnapshot(dir, manifest.generation, manifest.dimension, denseGraph, slice);
  let shown: ShownTexts | undefined;
  try {
    for await (const entry of readJournal(journalPath(dir, manifest.generation), manifest.dimension)) {
      applyEntry(store, entry);
      if (slice.due()) await slice.giveWay();
    }
    // A journal (or a snapshot taken while vectors waited) can leave many outside the graph: all but the bound
    // are inserted now, as before deferral, so the first searches do not scan thousands of vectors.
    for (let excess = store.ungraphedCount - maxUngraphed; excess > 0; ) {
      excess -= store.insertIntoGraph(Math.min(excess, GRAPH_BATCH));
      if (slice.due()) await slice.giveWay();
    }
    shown = await ShownTexts.open(dir, { idOf: (id) => store.heldId(id), slice });
    const journal = openJournal(journalPath(dir, manifest.generation));
    return { dir, manifest, store, journal, shown, usedAt: Date.now() };
  } catch (error) {
    shown?.close();
    store.close();
    throw error;
  }
}
