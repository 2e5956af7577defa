import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Confirmation, Page, TenantKey, VectorIndex, VectorItem } from '@memgate/core';
import { collectGarbage } from './collect-garbage.ts';
import { BackgroundGraphing } from './graphing.ts';
import { searchNamespace } from './hybrid.ts';
import { encodeEntry, type JournalEntry, openJournal, RecordBuffer } from './journal.ts';
import { applyEntry, loadNamespace, type OpenNamespace } from './load-namespace.ts';
import { journalPath, readManifest, removeOtherGenerations, writeManifest, writeSnapshot } from './snapshot.ts';

const CLOSED = 'local vector index is closed';

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
  /** Loads under way (withNamespace), each settled once its namespace is in `namespaces` or has failed to load. */
  const loading = new Map<TenantKey, Promise<void>>();
  const graphing = new BackgroundGraphing({ maxUngraphed, background: graphInBackground });
  // Every commit encodes its journal record here: the record is written before the next one is encoded.
  const records = new RecordBuffer();
  let closed = false;
  let closing: Promise<void> | undefined;
  const unloader = unloadIdleAfterMs > 0 ? startUnloader() : undefined;

  const directoryOf = (namespace: TenantKey) =>
    join(dir, createHash('sha256').update(namespace).digest('hex').slice(0, 32));

  /**
   * Runs `use` with the namespace's state (`undefined` when it has never held a vector and `createWithDimension` is
   * not given): at once when it is in memory, else once it is loaded (loadNamespace: without holding the event loop).
   * Concurrent first uses share one load; a load that fails fails the uses waiting for it and is tried again by the
   * next one. `use` runs in the same turn as the check, so nothing (an unload, a close) comes between; a use that
   * waited for a load is served even if `close` was called meanwhile (close waits for it).
   */
  function withNamespace<T>(
    namespace: TenantKey,
    createWithDimension: number | undefined,
    use: (state: OpenNamespace | undefined) => T,
    admitted = false,
  ): T | Promise<T> {
    if (closed && !admitted) throw new Error(CLOSED);
    const cached = namespaces.get(namespace);
    if (cached) {
      cached.usedAt = Date.now();
      return use(cached);
    }
    const load = loading.get(namespace) ?? startLoading(namespace, createWithDimension);
    if (!load) return use(undefined);
    return load.then(() => withNamespace(namespace, createWithDimension, use, true));
  }

  /** Starts loading the namespace (creating it first when asked); undefined when there is none to load. */
  function startLoading(namespace: TenantKey, createWithDimension: number | undefined): Promise<void> | undefined {
    if (closed) throw new Error(CLOSED);
    const nsDir = directoryOf(namespace);
    let manifest = readManifest(nsDir);
    if (!manifest) {
      if (createWithDimension === undefined) return undefined;
      mkdirSync(nsDir, { recursive: true });
      manifest = { namespace, dimension: createWithDimension, generation: 0 };
      writeManifest(nsDir, manifest);
    }
    const load = loadNamespace(nsDir, manifest, { denseGraph, maxUngraphed })
      .then((state) => {
        namespaces.set(namespace, state); // after a close too: the close waits for it, then releases it
        void graphing.afterWrite(state.store);
        // What reading it left behind goes once the requests waiting for it have run (as after an unload).
        if (state.store.size >= collectAfterLoading) setImmediate(collectGarbage).unref();
      })
      .finally(() => loading.delete(namespace));
    loading.set(namespace, load);
    return load;
  }

  function release(state: OpenNamespace): void {
    state.journal.close();
    state.shown.close();
    state.store.close();
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
      release(state);
      graphing.forget(state.store); // what may still wait for the graph is in the journal, staged again on reload
      namespaces.delete(namespace);
      unloaded++;
    }
    // An idle process may not collect for a long time: the dropped namespaces' memory is returned now, from a
    // fresh frame (this one still holds the last namespace it dropped).
    if (unloaded > 0) setImmediate(collectGarbage).unref();
  }

  /** Write-ahead: journal first, then memory. */
  function commit(state: OpenNamespace, entry: JournalEntry): void {
    state.journal.append(encodeEntry(entry, state.manifest.dimension, records));
    applyEntry(state.store, entry);
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
      const store = await withNamespace(namespace, first.values.length, (opened) => {
        const state = opened as OpenNamespace;
        checkDimensions(items, state.manifest.dimension);
        state.shown.put(items); // first: a confirmation of what this replaces must not outlive it
        commit(state, { op: 'upsert', items: [...items] });
        return state.store;
      });
      // Applied and searchable; the wait only keeps writes from outrunning the graph.
      await graphing.afterWrite(store);
    },

    async query(namespace, query) {
      return withNamespace(namespace, undefined, (state) => {
        if (!state) return [];
        const matches = searchNamespace(state.store, query);
        for (const match of matches) {
          const confirmed = state.shown.confirmedOf(match.id);
          if (confirmed) match.confirmed = confirmed;
        }
        return matches;
      });
    },

    async confirm(namespace, confirmations) {
      await withNamespace(namespace, undefined, (state) => state?.shown.confirm(confirmations));
    },

    async delete(namespace, ids) {
      await withNamespace(namespace, undefined, (state) => {
        if (!state) return;
        state.shown.remove(ids);
        const known = ids.filter((id) => state.store.idToSlot.has(id));
        if (known.length > 0) commit(state, { op: 'delete', ids: known });
      });
    },

    async listIds(namespace, { cursor, limit }): Promise<Page<string>> {
      return withNamespace(namespace, undefined, (state) => {
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
      });
    },

    loadedNamespaces() {
      return [...namespaces.keys()];
    },

    async listNamespaces() {
      if (closed) throw new Error(CLOSED);
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

    close() {
      closing ??= closeAll();
      return closing;
    },
  };

  async function closeAll(): Promise<void> {
    closed = true;
    clearInterval(unloader);
    // Vectors still outside the graph are in the snapshot's records and vectors; loading stages them again.
    graphing.stop();
    // Loads under way finish, and the requests waiting for them are served (they came before the close): their
    // reactions run before this one's. No load starts after this.
    await Promise.allSettled(loading.values());
    for (const state of namespaces.values()) {
      if (state.journal.bytes > 0) snapshot(state);
      release(state);
    }
    namespaces.clear();
  }
}
