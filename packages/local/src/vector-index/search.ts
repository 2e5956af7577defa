import type { VectorFilter, VectorMatch, VectorMetadata } from '@memgate/core';
import { cosineBounds, cosineTo } from './cosine.ts';
import { filterEntries, postingKey } from './filter.ts';
import type { DeferredGraph } from './graph.ts';
import type { SlotSet } from './slot-set.ts';
import type { NamespaceStore } from './store.ts';

/** Above this many multiply-adds (~1 ms) an exact scan of the filter's candidates is never chosen up front. */
const EXACT_SCAN_BUDGET = 2_000_000;
/**
 * Cost of one graph result in exact-scan candidates: a graph search spends about as long per result it fetches as
 * an exact scan spends on 16 candidates (measured at 512 dimensions: 0.27 ms for 30 results of 10k vectors; the
 * scan ~0.6 µs per candidate). A scope filter that matches nearly everything therefore goes to the graph (a
 * 3,000-vector scan cost 2.7 ms of a search's time), a selective one to the exact scan.
 */
const GRAPH_RESULT_COST = 16;
/** Times the graph search is widened (×4 each) before a filtered query falls back to an exact scan. */
const WIDENINGS = 2;

export type SlotTest = (slot: number) => boolean;
export const ANY: SlotTest = () => true;

/**
 * Which slots pass `filter`: every entry's posting list must hold the slot; `undefined` when none can. A list that
 * holds every live slot (the tenant's owner, a scope all its records share) tests nothing and is left out.
 */
export function filterTest(store: NamespaceStore, filter: VectorFilter | undefined): SlotTest | undefined {
  const postings = postingsOf(store, filterEntries(filter));
  return postings && allOf(postings.filter((set) => set.size < store.size));
}

/** Each filter entry's posting list; `undefined` when a value has none, so no slot can pass. */
function postingsOf(store: NamespaceStore, entries: readonly [string, string][]): SlotSet[] | undefined {
  const postings = entries.map(([field, value]) => store.postings.get(postingKey(field, value)));
  return postings.some((set) => set === undefined) ? undefined : (postings as SlotSet[]);
}

/** Membership of every one of `sets` (each by its bitmap when dense enough, slot-set.ts). */
function allOf(sets: readonly SlotSet[]): SlotTest {
  const tests = sets.map((set) => set.test());
  if (tests.length === 0) return ANY;
  if (tests.length === 1) return tests[0] as SlotTest;
  return (slot) => tests.every((test) => test(slot));
}

/**
 * Best-first matches with cosine similarity clamped to [0, 1]. Unfiltered: the HNSW graph. Filtered: each filter
 * value has a posting list; the smallest bounds the candidates and the others are membership tests. Few candidates
 * are scanned exactly; many are found by oversampling the graph in proportion to the filter's selectivity and
 * post-filtering, widening a little, then ending in an exact scan, so a selective filter never loses matches the
 * graph did not reach. A namespace without a graph (the lexical embedder's, store.ts) is always scanned exactly.
 */
export function searchDense(
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
  if (isZero(query.vector)) {
    // Cosine with the zero vector is undefined; it is similar to nothing (usearch would call two zeros identical):
    // the first `topK` slots the filter passes, each scoring 0. (The filter was once skipped here: a text with no
    // token, embedded as zeros, found chunks outside the scopes it asked for.)
    const accepts = filterTest(store, query.filter);
    return accepts ? exactScan(store, query.vector, topK, store.idToSlot.values(), accepts) : [];
  }
  const { graph } = store;
  if (entries.length === 0) {
    if (!graph) return exactScan(store, query.vector, topK, store.idToSlot.values(), ANY);
    const matches = searchGraph(store, graph, query.vector, topK, ANY);
    return matches.length >= topK ? matches : exactScan(store, query.vector, topK, store.idToSlot.values(), ANY);
  }
  const postings = postingsOf(store, entries);
  if (!postings) return [];
  const [candidates, ...others] = postings.sort((a, b) => a.size - b.size) as [SlotSet, ...SlotSet[]];
  // Scans walk the candidates, so only the other lists need testing; graph results must pass every list.
  const inOthers = allOf(others);
  if (!graph) return exactScan(store, query.vector, topK, candidates, inOthers);
  const matches: SlotTest = (slot) => candidates.has(slot) && inOthers(slot);
  // Expected matches among `fetch` graph results ≈ fetch × selectivity (at most candidates/live); ask for twice that.
  let fetch = Math.min(live, Math.ceil((topK * live * 2) / candidates.size) + topK);
  const scanCost = candidates.size;
  if (scanCost * store.dimension <= EXACT_SCAN_BUDGET && scanCost <= fetch * GRAPH_RESULT_COST) {
    return exactScan(store, query.vector, topK, candidates, inOthers);
  }
  for (let round = 0; ; round++) {
    const found = searchGraph(store, graph, query.vector, fetch, matches);
    if (found.length >= topK) return found.slice(0, topK);
    if (fetch >= live || round >= WIDENINGS) break;
    fetch = Math.min(live, fetch * 4);
  }
  return exactScan(store, query.vector, topK, candidates, inOthers);
}

/**
 * The best `fetch` of the graph's candidates and of the vectors not in the graph yet (graph.ts), all rescored
 * exactly: the graph stores 8-bit vectors, so it only proposes neighbours; scores, and the order among them, come
 * from the float32 copy, so the similarity band sees true cosines. The vectors waiting for the graph (a bounded
 * few thousand, graphing.ts) are scanned exactly, so a vector is found from the moment its write returned.
 */
function searchGraph(
  store: NamespaceStore,
  graph: DeferredGraph,
  vector: Float32Array,
  fetch: number,
  matches: SlotTest,
): VectorMatch[] {
  const found = graph.search(vector, fetch);
  const cosine = cosineTo(store, vector);
  const scored: Scored[] = [];
  for (let i = 0; i < found.length; i++) {
    const slot = Number(found[i]);
    if (store.slots[slot] === undefined || !matches(slot)) continue;
    scored.push({ slot, score: cosine(slot) });
  }
  for (const slot of graph.ungraphed) if (matches(slot)) scored.push({ slot, score: cosine(slot) });
  return ranked(store, scored, fetch);
}

/**
 * The best `topK` of `slots` by exact cosine, as a stable sort of all of them would rank them. Scores come as
 * intervals (cosine.ts: exact for float32 vectors); only those whose interval reaches the `topK`-th best lower bound
 * are made exact at the end, so compact vectors read few exact values (compact-vectors.ts).
 */
function exactScan(
  store: NamespaceStore,
  vector: Float32Array,
  topK: number,
  slots: Iterable<number>,
  matches: SlotTest,
): VectorMatch[] {
  const cosine = cosineBounds(store, vector);
  const held = scan;
  let count = 0;
  // Cut back to those that can still reach the top whenever enough are held: a 100k-slot scan (no graph) neither
  // sorts nor holds them all. A later slot whose upper bound is at most the `topK`-th best lower bound is dropped:
  // at least `topK` earlier ones score as much, and a stable sort ranks them first.
  let floor = Number.NEGATIVE_INFINITY;
  let cutAt = 4 * topK + 64;
  held.reserve(cutAt);
  for (const slot of slots) {
    if (store.slots[slot] === undefined || !matches(slot)) continue;
    cosine.bound(slot);
    if (cosine.high <= floor) continue;
    held.slots[count] = slot;
    held.lows[count] = cosine.low;
    held.highs[count] = cosine.high;
    count++;
    if (count >= cutAt) {
      floor = held.lowestOfTop(count, topK);
      count = held.keepReaching(count, floor);
      cutAt = Math.max(cutAt, 2 * count);
      held.reserve(cutAt);
    }
  }
  const last = count >= topK ? held.lowestOfTop(count, topK) : Number.NEGATIVE_INFINITY;
  // Those whose interval reaches `last`, made exact: at least `topK` of them score `last` or more, so the others
  // (below it) cannot be in the top and are left out before ranking.
  const scored: Scored[] = [];
  for (let i = 0; i < count; i++) {
    if ((held.highs[i] as number) < last) continue;
    const slot = held.slots[i] as number;
    const low = held.lows[i] as number;
    scored.push({ slot, score: low === held.highs[i] ? low : cosine.exact(slot) });
  }
  return ranked(store, scored, topK);
}

/**
 * The slots an exact scan holds with their cosine intervals, in scan order, in arrays reused from scan to scan (a
 * scan runs to its end synchronously): an object per slot was most of what a context search allocated.
 */
class ScanBuffers {
  slots = new Int32Array(0);
  lows = new Float64Array(0);
  highs = new Float64Array(0);
  private sorted = new Float64Array(0);

  /** Room for `count` slots, what is held kept. */
  reserve(count: number): void {
    if (count <= this.slots.length) return;
    const size = Math.max(count, 2 * this.slots.length);
    const grown = (from: Float64Array) => {
      const into = new Float64Array(size);
      into.set(from);
      return into;
    };
    const slots = new Int32Array(size);
    slots.set(this.slots);
    this.slots = slots;
    this.lows = grown(this.lows);
    this.highs = grown(this.highs);
    this.sorted = new Float64Array(size);
  }

  /** The `topK`-th highest lower bound of the first `count` held (there are at least `topK`). */
  lowestOfTop(count: number, topK: number): number {
    const sorted = this.sorted.subarray(0, count);
    sorted.set(this.lows.subarray(0, count));
    sorted.sort(); // ascending
    return sorted[count - topK] as number;
  }

  /** Keeps, in order, those of the first `count` whose upper bound reaches `floor`; returns how many. */
  keepReaching(count: number, floor: number): number {
    let kept = 0;
    for (let i = 0; i < count; i++) {
      if ((this.highs[i] as number) < floor) continue;
      this.slots[kept] = this.slots[i] as number;
      this.lows[kept] = this.lows[i] as number;
      this.highs[kept] = this.highs[i] as number;
      kept++;
    }
    return kept;
  }
}

const scan = new ScanBuffers();

interface Scored {
  slot: number;
  score: number;
}

/** The best `limit` of `scored`, best first, as matches. */
function ranked(store: NamespaceStore, scored: Scored[], limit: number): VectorMatch[] {
  scored.sort((a, b) => b.score - a.score);
  return scored.slice(0, limit).map(({ slot, score }) => {
    const record = store.slots[slot] as { id: string; metadata: VectorMetadata };
    return { id: record.id, score, metadata: copy(record.metadata) };
  });
}

function isZero(vector: Float32Array): boolean {
  for (let i = 0; i < vector.length; i++) if (vector[i] !== 0) return false;
  return true;
}

/** Callers get their own copy: mutating a result must not change the index. */
export function copy(metadata: VectorMetadata): VectorMetadata {
  return { ...metadata, scopes: [...metadata.scopes], tags: [...metadata.tags] };
}
