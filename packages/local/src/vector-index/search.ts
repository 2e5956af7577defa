import type { VectorFilter, VectorMatch, VectorMetadata } from '@memgate/core';
import { filterEntries, matchesFilter, postingKey } from './filter.ts';
import type { NamespaceStore } from './store.ts';

/** Below this many multiply-adds an exact scan of the filter's candidates beats oversampling the graph (~1 ms). */
const EXACT_SCAN_BUDGET = 2_000_000;

type Entries = [keyof VectorMetadata, string][];

/**
 * Best-first matches with cosine similarity clamped to [0, 1]. Unfiltered: the HNSW graph. Filtered: the
 * smallest posting list bounds the candidates; few candidates (or few true matches) are scanned exactly, many are
 * found by oversampling the graph in proportion to the filter's selectivity and post-filtering, widening until
 * enough match and ending in an exact scan, so a selective filter never loses matches the graph did not reach.
 */
export function searchNamespace(
  store: NamespaceStore,
  query: { vector: Float32Array; topK: number; filter?: VectorFilter },
): VectorMatch[] {
  if (query.vector.length !== store.dimension) {
    throw new Error(`query vector has dimension ${query.vector.length}, this namespace holds ${store.dimension}`);
  }
  const live = store.size;
  const topK = Math.min(Math.floor(query.topK), live);
  if (!(topK > 0)) return []; // also NaN
  const entries = filterEntries(query.filter);
  if (entries.length === 0) {
    const matches = searchGraph(store, query.vector, topK, entries);
    return matches.length >= topK ? matches : exactScan(store, query.vector, topK, allSlots(store), entries);
  }
  const candidates = smallestPosting(store, entries);
  if (candidates.size * store.dimension <= EXACT_SCAN_BUDGET) {
    return exactScan(store, query.vector, topK, candidates, entries);
  }
  // One key: the posting list is the match set. More: count the true matches (no allocation, one pass).
  let matchCount = candidates.size;
  if (entries.length > 1) {
    matchCount = 0;
    for (const slot of candidates) if (matchesSlot(store, slot, entries)) matchCount++;
  }
  const wanted = Math.min(topK, matchCount);
  if (wanted === 0) return [];
  if (matchCount * store.dimension <= EXACT_SCAN_BUDGET)
    return exactScan(store, query.vector, wanted, candidates, entries);
  // Expected matches among `fetch` graph results ≈ fetch × selectivity; ask for twice what should suffice.
  let fetch = Math.min(live, Math.ceil((wanted * live * 2) / matchCount) + wanted);
  for (;;) {
    const matches = searchGraph(store, query.vector, fetch, entries);
    if (matches.length >= wanted) return matches.slice(0, wanted);
    if (fetch >= live) break;
    fetch = Math.min(live, fetch * 4);
  }
  return exactScan(store, query.vector, wanted, candidates, entries);
}

function searchGraph(store: NamespaceStore, vector: Float32Array, fetch: number, entries: Entries): VectorMatch[] {
  const found = store.hnsw.search(vector, fetch, 1);
  const matches: VectorMatch[] = [];
  for (let i = 0; i < found.keys.length; i++) {
    const slot = Number(found.keys[i]);
    const record = store.slots[slot];
    if (!record || !matchesFilter(record.metadata, entries)) continue;
    matches.push({ id: record.id, score: clamp(1 - (found.distances[i] as number)), metadata: copy(record.metadata) });
  }
  return matches;
}

function exactScan(
  store: NamespaceStore,
  vector: Float32Array,
  topK: number,
  slots: Iterable<number>,
  entries: Entries,
): VectorMatch[] {
  let squared = 0;
  for (let i = 0; i < vector.length; i++) squared += (vector[i] as number) * (vector[i] as number);
  const inverseQuery = squared > 0 ? 1 / Math.sqrt(squared) : 0;
  const scored: { slot: number; score: number }[] = [];
  const { arena, inverseNorms, dimension } = store;
  for (const slot of slots) {
    if (entries.length > 0 && !matchesSlot(store, slot, entries)) continue;
    const base = slot * dimension;
    let dot = 0;
    for (let i = 0; i < dimension; i++) dot += (arena[base + i] as number) * (vector[i] as number);
    scored.push({ slot, score: clamp(dot * (inverseNorms[slot] as number) * inverseQuery) });
  }
  scored.sort((a, b) => b.score - a.score);
  return scored.slice(0, topK).map(({ slot, score }) => {
    const record = store.slots[slot] as { id: string; metadata: VectorMetadata };
    return { id: record.id, score, metadata: copy(record.metadata) };
  });
}

function smallestPosting(store: NamespaceStore, entries: Entries): Set<number> {
  let smallest: Set<number> | undefined;
  for (const [field, value] of entries) {
    const set = store.postings.get(postingKey(field, value));
    if (!set) return new Set();
    if (!smallest || set.size < smallest.size) smallest = set;
  }
  return smallest ?? new Set();
}

function allSlots(store: NamespaceStore): number[] {
  return [...store.idToSlot.values()];
}

function matchesSlot(store: NamespaceStore, slot: number, entries: Entries): boolean {
  const record = store.slots[slot];
  return record !== undefined && matchesFilter(record.metadata, entries);
}

function clamp(score: number): number {
  if (!(score > 0)) return 0; // also NaN (a zero vector) → 0
  return Math.min(score, 1);
}

/** Callers get their own copy: mutating a result must not change the index. */
function copy(metadata: VectorMetadata): VectorMetadata {
  return { ...metadata, scopes: [...metadata.scopes], tags: [...metadata.tags] };
}
