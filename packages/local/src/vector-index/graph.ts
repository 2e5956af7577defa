import { existsSync } from 'node:fs';
import usearch from 'usearch';

// HNSW parameters: usearch's defaults for connectivity, a wider search beam for better recall on filtered oversampling.
// The graph holds 8-bit quantised vectors: a quarter of the memory, inserts ~40% and searches ~3x cheaper than float32
// at 512 dimensions, with the same recall on lexical vectors; search.ts rescores what it proposes from the float32
// arena, so scores stay exact. (A graph saved as float32 by an older version loads as such: usearch keeps the kind
// a file was written with.)
const CONNECTIVITY = 16;
export const EXPANSION_ADD = 128;
const EXPANSION_SEARCH = 64;
/**
 * Graph inserts run on the calling thread: usearch's automatic thread pool costs twice the CPU time on small
 * batches (measured 0.8 vs 0.4 ms per vector with 100-vector batches), and DynamoDB Local needs the other cores.
 */
const ADD_THREADS = 1;

/**
 * A namespace's HNSW graph (usearch, keyed by slot number) and the live slots not inserted into it yet. Inserting a
 * vector into the graph is the dearest part of a write (0.25-0.35 ms at 512 dimensions and 10k vectors), so writes
 * only stage their slots here and `insert` moves them into the graph later, in small batches off the write's path
 * (graphing.ts). Until then searches score the staged slots exactly (search.ts): a vector is found from the moment
 * its write returns, and at least as surely as once it is in the graph.
 */
export class DeferredGraph {
  private hnsw: InstanceType<typeof usearch.Index>;
  /** Live slots whose current vector is not in the graph, oldest first. */
  readonly ungraphed = new Set<number>();

  constructor(
    private readonly dimension: number,
    private readonly expansionAdd = EXPANSION_ADD,
  ) {
    this.hnsw = createGraph(dimension, expansionAdd);
  }

  /** Vectors in the graph. */
  get size(): number {
    return this.hnsw.size();
  }

  /** Slot `slot` holds a new vector (`replacing`: it held a live one before, possibly in the graph). */
  stage(slot: number, replacing: boolean): void {
    if (replacing && !this.ungraphed.has(slot)) this.hnsw.remove(BigInt(slot));
    this.ungraphed.add(slot);
  }

  /** The live slot `slot` is deleted. */
  drop(slot: number): void {
    if (!this.ungraphed.delete(slot)) this.hnsw.remove(BigInt(slot));
  }

  /** Inserts the `limit` oldest staged slots into the graph, their vectors read by `vectorAt`; how many it inserted. */
  insert(limit: number, vectorAt: (slot: number) => Float32Array, threads = ADD_THREADS): number {
    const count = Math.min(limit, this.ungraphed.size);
    if (count <= 0) return 0;
    const keys = new BigUint64Array(count);
    const matrix = new Float32Array(count * this.dimension);
    let row = 0;
    for (const slot of this.ungraphed) {
      if (row === count) break;
      keys[row] = BigInt(slot);
      matrix.set(vectorAt(slot), row * this.dimension);
      row++;
    }
    this.hnsw.add(keys, matrix, threads);
    for (const key of keys) this.ungraphed.delete(Number(key));
    return count;
  }

  /** The graph's `count` nearest slots to `vector` (fewer when it holds fewer), nearest first. */
  search(vector: Float32Array, count: number): BigUint64Array {
    const size = this.hnsw.size();
    if (size === 0 || count <= 0) return new BigUint64Array(0);
    return this.hnsw.search(vector, Math.min(count, size), 1).keys;
  }

  /** Writes the graph to `path`; false (nothing written) when it is empty. */
  save(path: string): boolean {
    // usearch 2.21 corrupts memory when an index saved with no live vectors is loaded and then added to: an empty
    // graph is not saved, and loading starts a fresh one.
    if (this.hnsw.size() === 0) return false;
    this.hnsw.save(path);
    return true;
  }

  /**
   * Loads the graph saved at `path` (none: an empty graph) for the live slots `live`: those it does not hold are
   * staged (they were written after it, or while it was saved). False when it holds a slot that is not live: the
   * records are the truth, and such a graph must be rebuilt (`rebuild`).
   */
  load(path: string, live: readonly number[]): boolean {
    this.hnsw = createGraph(this.dimension, this.expansionAdd);
    this.ungraphed.clear();
    if (existsSync(path)) this.hnsw.load(path);
    const held = live.length === 0 ? [] : (this.hnsw.contains(BigUint64Array.from(live, BigInt)) as boolean[]);
    let inGraph = 0;
    for (const [i, slot] of live.entries()) {
      if (held[i]) inGraph++;
      else this.ungraphed.add(slot);
    }
    return inGraph === this.hnsw.size();
  }

  /** A new graph of the live slots `live`, built at once on every core (recovery when a saved graph is unusable). */
  rebuild(live: readonly number[], vectorAt: (slot: number) => Float32Array): void {
    this.hnsw = createGraph(this.dimension, this.expansionAdd);
    this.ungraphed.clear();
    for (const slot of live) this.ungraphed.add(slot);
    this.insert(live.length, vectorAt, 0);
  }
}

function createGraph(dimension: number, expansionAdd: number): InstanceType<typeof usearch.Index> {
  return new usearch.Index({
    dimensions: dimension,
    metric: usearch.MetricKind.Cos,
    connectivity: CONNECTIVITY,
    expansion_add: expansionAdd,
    expansion_search: EXPANSION_SEARCH,
    quantization: usearch.ScalarKind.I8,
    multi: false,
  });
}
