import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Confirmation, Page, TenantKey, VectorIndex, VectorItem } from '@memgate/core';
import { collectGarbage } from './collect-garbage.ts';
import { BackgroundGraphing } from './graphing.ts';
import { searchNamespace } from './hybrid.ts';
import {
  encodeEntry,
  type JournalEntry,
  type JournalWriter,
  openJournal,
  RecordBuffer,
  readJournal,
} from './journal.ts';
import { ShownTexts } from './shown.ts';
import {
  journalPath,
  type Manifest,
  readManifest,
  readSnapshot,
  removeOtherGenerations,
  writeManifest,
  writeSnapshot,
} from './snapshot.ts';
import type { NamespaceStore } from './store.ts';

export interface LocalVectorIndex extends VectorIndex {
  confirm(namespace: TenantKey, confirmations: readonly Confirmation[]): Promise<void>;
  /** Resolves once every vector written so far is in its namespace's graph (benchmarks: the work a write left). */
  idle(): Promise<void>;
  /** Flushes to disk and releases the index. */
  close(): Promise<void>;
  /** The namespaces held in memory now (others are loaded on their next use). */
  loadedNamespaces(): TenantKey[];
}

export interface LocalVectorIndexOptions {
  dir: string;
  /** Journal size that triggers a snapshot (at least half the namespace's vector bytes, so rewrites stay amortised). */
  snapshotAfterBytes?: number;
  /**
   * A namespace not used for this long is dropped from memory and loaded again (snapshot, then journal) on its next
   * use; 0 keeps every namespace loaded until `close`.
   */
  unloadIdleAfterMs?: number;
  /**
   * Vectors a namespace may hold outside its HNSW graph, searched exactly until the background inserts them
   * (graphing.ts); a write that leaves more waits for the graph to catch up. 0: every write waits for its vectors
   * to be in the graph.
   */
  maxUngraphed?: number;
  /** False: no background insertion, vectors enter the graph only beyond `maxUngraphed` (tests). */
  graphInBackground?: boolean;
  /**
   * Keep an HNSW graph per namespace for the dense half of a search (the default). False for the lexical embedder:
   * a hybrid query then takes its dense half from the lexical candidates (exact cosines: closer to an exhaustive
   * scoring than the graph was, hybrid.ts), and writes insert into no graph. A query with no terms, or fewer lexical
   * candidates than `topK`, scans every vector exactly. Switching it for an existing directory is safe either way:
   * a graph file is then ignored, or built again from the vectors.
   */
  denseGraph?: boolean;
  /**
   * Loading a namespace of at least this many vectors from disk is followed by a full garbage collection (~50 ms
   * with 100k chunks loaded): reading one leaves its files' text and parsed records behind (~45 MiB at 100k
   * chunks, most in V8's large object space), which V8 would otherwise keep until a full collection that a
   * search load may not bring for many seconds (bench/OVER-BUDGET.md, "Server RSS").
   */
  collectAfterLoading?: number;
}

/**
 * Whether an index serving `embeddings` needs its HNSW graph: neural embeddings do (their cosine carries meaning
 * lexical candidates would miss, and the lexical weight is 0.3); the local lexical embedder's vectors do not.
 */
export function denseGraphFor(embeddings: 'local' | 'openai' | 'pinecone'): boolean {
  return embeddings !== 'local';
}

interface OpenNamespace {
  dir: string;
  manifest: Manifest;
  store: NamespaceStore;
  journal: JournalWriter;
  /** Texts and confirmations, in their own file (shown.ts). */
  shown: ShownTexts;
  /** Date.now() of its last use. */
  usedAt: number;
}

/**
 * Embedded persistent vector index under `dir` (usearch HNSW, cosine), one directory per namespace, loaded on first
 * use. Durability: every batch is appended to a journal before it is applied (write-ahead), so an acknowledged
 * write survives a crash of the process; snapshots (graph, vectors, records) bound the journal and make restarts
 * fast. The journal is not fsynced per batch: a power cut may lose the last moments, like DynamoDB Local beside it.
 * Graph insertion, the dearest part of a write, is deferred (graphing.ts): a write's vectors are searched exactly
 * until the background has put them in the graph, and a snapshot keeps which ones are not in it yet.
 * Local runs only: usearch is a native module that must never enter a Lambda bundle.
 */
export async function createLocalVectorIndex({
  dir,
  snapshotAfterBytes = 32 * 1024 * 1024,
  unloadIdleAfterMs = 0,
  maxUngraphed = 2048,
  graphInBackground = true,
  denseGraph = true,
  collectAfterLoading = 50_000,
}: LocalVectorIndexOptions): Promise<LocalVectorIndex> {
  mkdirSync(dir, { recursive: true });
  const namespaces = new Map<TenantKey, OpenNamespace>();
  const graphing = new BackgroundGraphing({ maxUngraphed, background: graphInBackground });
  // Every commit encodes its journal record here: the record is written before the next one is encoded.
  const records = new RecordBuffer();
  let closed = false;
  const unloader = unloadIdleAfterMs > 0 ? startUnloader() : undefined;

  const directoryOf = (namespace: TenantKey) =>
    join(dir, createHash('sha256').update(namespace).digest('hex').slice(0, 32));

  /** The namespace's state, loading it on first use; `undefined` when it has never held a vector. */
  function open(namespace: TenantKey, createWithDimension?: number): OpenNamespace | undefined {
    if (closed) throw new Error('local vector index is closed');
    const cached = namespaces.get(namespace);
    if (cached) {
      cached.usedAt = Date.now();
      return cached;
    }
    const nsDir = directoryOf(namespace);
    let manifest = readManifest(nsDir);
    if (!manifest) {
      if (createWithDimension === undefined) return undefined;
      mkdirSync(nsDir, { recursive: true });
      manifest = { namespace, dimension: createWithDimension, generation: 0 };
      writeManifest(nsDir, manifest);
    }
    removeOtherGenerations(nsDir, manifest.generation);
    const store = readSnapshot(nsDir, manifest.generation, manifest.dimension, denseGraph);
    for (const entry of readJournal(journalPath(nsDir, manifest.generation), manifest.dimension)) apply(store, entry);
    // A journal (or a snapshot taken while vectors waited) can leave many outside the graph: all but the bound
    // are inserted now, as before deferral, so the first searches do not scan thousands of vectors.
    const excess = store.ungraphedCount - maxUngraphed;
    if (excess > 0) store.insertIntoGraph(excess);
    void graphing.afterWrite(store);
    const journal = openJournal(journalPath(nsDir, manifest.generation));
    const shown = new ShownTexts(nsDir, undefined, (id) => store.heldId(id));
    const state = { dir: nsDir, manifest, store, journal, shown, usedAt: Date.now() };
    namespaces.set(namespace, state);
    // What reading it left behind goes once this request's synchronous part is done (as after an unload).
    if (store.size >= collectAfterLoading) setImmediate(collectGarbage).unref();
    return state;
  }

  /**
   * Checks for idle namespaces every half idle time (at most a minute). Everything a namespace holds is on disk
   * already (journal first), so dropping it loses nothing; the next use replays its journal over its snapshot.
   */
  function startUnloader(): NodeJS.Timeout {
    const timer = setInterval(unloadIdle, Math.min(60_000, Math.max(1000, unloadIdleAfterMs / 2)));
    timer.unref(); // never what keeps the process alive
    return timer;
  }

  function unloadIdle(): void {
    const now = Date.now();
    let unloaded = 0;
    for (const [namespace, state] of namespaces) {
      if (now - state.usedAt < unloadIdleAfterMs) continue;
      state.journal.close();
      state.shown.close();
      state.store.close();
      graphing.forget(state.store); // what may still wait for the graph is in the journal, staged again on reload
      namespaces.delete(namespace);
      unloaded++;
    }
    // An idle process may not collect for a long time: the dropped namespaces' memory is returned now, from a
    // fresh frame (this one still holds the last namespace it dropped).
    if (unloaded > 0) setImmediate(collectGarbage).unref();
  }

  function apply(store: NamespaceStore, entry: JournalEntry): void {
    if (entry.op === 'upsert') store.upsert(entry.items);
    else store.delete(entry.ids);
  }

  /** Write-ahead: journal first, then memory. */
  function commit(state: OpenNamespace, entry: JournalEntry): void {
    state.journal.append(encodeEntry(entry, state.manifest.dimension, records));
    apply(state.store, entry);
    const vectorBytes = state.store.size * state.manifest.dimension * 4;
    if (state.journal.bytes >= Math.max(snapshotAfterBytes, vectorBytes / 2)) snapshot(state);
  }

  function snapshot(state: OpenNamespace): void {
    const generation = state.manifest.generation + 1;
    writeSnapshot(state.dir, generation, state.store);
    state.journal.close();
    state.manifest = { ...state.manifest, generation };
    writeManifest(state.dir, state.manifest);
    state.journal = openJournal(journalPath(state.dir, generation));
    removeOtherGenerations(state.dir, generation);
  }

  function checkDimensions(items: readonly VectorItem[], dimension: number): void {
    for (const item of items) {
      if (item.values.length !== dimension) {
        throw new Error(`vector '${item.id}' has dimension ${item.values.length}, this namespace holds ${dimension}`);
      }
    }
  }

  return {
    async upsert(namespace, items) {
      const first = items[0];
      if (!first) return;
      const state = open(namespace, first.values.length) as OpenNamespace;
      checkDimensions(items, state.manifest.dimension);
      state.shown.put(items); // first: a confirmation of what this replaces must not outlive it
      commit(state, { op: 'upsert', items: [...items] });
      // Applied and searchable; the wait only keeps writes from outrunning the graph.
      await graphing.afterWrite(state.store);
    },

    async query(namespace, query) {
      const state = open(namespace);
      if (!state) return [];
      const matches = searchNamespace(state.store, query);
      for (const match of matches) {
        const confirmed = state.shown.confirmedOf(match.id);
        if (confirmed) match.confirmed = confirmed;
      }
      return matches;
    },

    async confirm(namespace, confirmations) {
      open(namespace)?.shown.confirm(confirmations);
    },

    async delete(namespace, ids) {
      const state = open(namespace);
      state?.shown.remove(ids);
      const known = state ? ids.filter((id) => state.store.idToSlot.has(id)) : [];
      if (state && known.length > 0) commit(state, { op: 'delete', ids: known });
    },

    async listIds(namespace, { cursor, limit }): Promise<Page<string>> {
      const state = open(namespace);
      if (!state) return { items: [], nextCursor: null };
      const start = cursor === undefined ? 0 : Number(cursor);
      if (!Number.isInteger(start) || start < 0) throw new Error('listIds: invalid cursor');
      const { slots } = state.store;
      const items: string[] = [];
      let slot = start;
      for (; slot < slots.length && items.length < limit; slot++) {
        const record = slots[slot];
        if (record) items.push(record.id);
      }
      while (slot < slots.length && slots[slot] === undefined) slot++;
      return { items, nextCursor: slot < slots.length ? String(slot) : null };
    },

    loadedNamespaces() {
      return [...namespaces.keys()];
    },

    async listNamespaces() {
      if (closed) throw new Error('local vector index is closed');
      const found = new Set<TenantKey>(namespaces.keys());
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (!entry.isDirectory()) continue;
        const manifest = readManifest(join(dir, entry.name));
        if (manifest) found.add(manifest.namespace);
      }
      return [...found].sort();
    },

    idle() {
      return graphing.idle();
    },

    async close() {
      if (closed) return;
      closed = true;
      clearInterval(unloader);
      // Vectors still outside the graph are in the snapshot's records and vectors; loading stages them again.
      graphing.stop();
      for (const state of namespaces.values()) {
        if (state.journal.bytes > 0) snapshot(state);
        state.journal.close();
        state.shown.close();
        state.store.close();
      }
      namespaces.clear();
    },
  };
}
