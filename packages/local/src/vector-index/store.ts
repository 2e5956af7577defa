import type { VectorItem, VectorMetadata } from '@memgate/core';
import { resolveChains } from './chain.ts';
import { CompactVectors } from './compact-vectors.ts';
import { postingKeysOf } from './filter.ts';
import { DeferredGraph } from './graph.ts';
import { LexicalPostings, type SlotTerms } from './lexical.ts';
import type { SlotChain } from './slot-chains.ts';
import { SlotSet } from './slot-set.ts';
import { FloatVectors, type SlotVectors } from './vectors.ts';

/**
 * One stored vector's identity; its values live in the arena at `slot * dimension`, its terms only in the lexical
 * postings (lexical.ts). Chunks of one document share one metadata object (see `NamespaceStore.intern`).
 */
export interface SlotRecord {
  id: string;
  metadata: VectorMetadata;
}

/** What a slot is written from: its identity, and its term frequencies for the lexical half (absent: none). */
export interface SlotInput extends SlotRecord, SlotTerms {}

/**
 * In-memory state of one namespace: the HNSW graph (usearch, keyed by slot number) with the slots not in it yet
 * (graph.ts), the vectors for exact scores (vectors.ts), posting lists per metadata value for filters, and the
 * lexical postings of its terms. Slots of deleted vectors are reused. Without a graph (`withGraph` false: the
 * lexical embedder's namespaces, where hybrid search takes its dense half from the lexical candidates, hybrid.ts),
 * writes insert nothing, dense searches scan exactly, and the vectors are held in 8 bits, their exact values read
 * back only for the candidates that could reach a search's top (compact-vectors.ts).
 * Everything here is synchronous, so each call is atomic with respect to other requests on the event loop.
 */
export class NamespaceStore {
  readonly dimension: number;
  readonly graph: DeferredGraph | undefined;
  readonly slots: (SlotRecord | undefined)[] = [];
  readonly idToSlot = new Map<string, number>();
  readonly postings = new Map<string, SlotSet>();
  readonly lexical = new LexicalPostings();
  private readonly free: number[] = [];
  /** Metadata shared by slots with equal metadata (a document's chunks), with how many slots use it. */
  private readonly sharedMetadata = new Map<string, SharedMetadata>();
  private lastInterned: SharedMetadata | undefined;
  readonly vectors: SlotVectors;
  /** Scratch of one search, all 0 between searches: which slots it has already scored (hybrid.ts). */
  marks: Uint8Array;

  /** `compact` (the default without a graph): 8-bit vectors (compact-vectors.ts); the graph inserts from float32. */
  constructor(dimension: number, capacity = 1024, withGraph = true, compact = !withGraph) {
    if (withGraph && compact) throw new Error('a namespace with a graph keeps its vectors as float32');
    this.dimension = dimension;
    this.graph = withGraph ? new DeferredGraph(dimension) : undefined;
    this.vectors = compact ? new CompactVectors(dimension, capacity) : new FloatVectors(dimension, capacity);
    this.marks = new Uint8Array(capacity);
  }

  get size(): number {
    return this.idToSlot.size;
  }

  /** The string this store holds for `id` (`id` itself when it holds none), for other maps to share. */
  heldId(id: string): string {
    const slot = this.idToSlot.get(id);
    return slot === undefined ? id : (this.slots[slot] as SlotRecord).id;
  }

  /**
   * Writes vectors, replacing those with the same id. They are searchable at once; the graph takes them later
   * (`insertIntoGraph`), until then searches scan them exactly.
   */
  upsert(items: readonly VectorItem[]): void {
    const latest = new Map<string, VectorItem>();
    for (const item of items) latest.set(item.id, item); // last one wins inside a batch
    const batch = [...latest.values()];
    const slots: number[] = [];
    const replaced: number[] = [];
    for (const item of batch) {
      let slot = this.idToSlot.get(item.id);
      if (slot === undefined) {
        slot = this.free.pop() ?? this.slots.length;
        this.ensureCapacity(slot + 1);
        if (slot === this.slots.length) this.slots.push(undefined);
      } else replaced.push(slot);
      slots.push(slot);
    }
    // Every old version goes before any new one is written: the chains link the new ones at their new epochs.
    this.lexical.detach(replaced);
    for (const slot of replaced) this.unlinkPostings(slot);
    const chains = resolveChains(batch, slots, (weights) => this.lexical.canChain(weights));
    const replacing = new Set(replaced);
    batch.forEach((item, i) => {
      const slot = slots[i] as number;
      this.place(slot, item, item.values, chains[i]);
      this.graph?.stage(slot, replacing.has(slot));
    });
  }

  /** Inserts up to `limit` of the vectors written since into the graph, oldest first; how many it inserted. */
  insertIntoGraph(limit: number): number {
    return this.graph?.insert(limit, (slot) => this.vectorAt(slot)) ?? 0;
  }

  /** Live vectors written since and not in the graph yet (none without a graph). */
  get ungraphedCount(): number {
    return this.graph?.ungraphed.size ?? 0;
  }

  delete(ids: readonly string[]): void {
    const slots = new Set<number>();
    for (const id of ids) {
      const slot = this.idToSlot.get(id);
      if (slot !== undefined) slots.add(slot);
    }
    this.lexical.detach([...slots]);
    for (const slot of slots) {
      const id = (this.slots[slot] as SlotRecord).id;
      this.unlinkPostings(slot);
      this.graph?.drop(slot);
      this.idToSlot.delete(id);
      this.slots[slot] = undefined;
      this.free.push(slot);
    }
  }

  /** Restores a slot from a snapshot of the first format, terms beside it (the graph is loaded separately). */
  restore(slot: number, record: SlotInput, values: Float32Array): void {
    this.ensureCapacity(slot + 1);
    this.place(slot, record, values);
  }

  /**
   * Restores a slot whose values a snapshot already loaded (`vectors.load`, after `reserve`) and whose terms it gives
   * the lexical postings as a whole (`lexical.restore`).
   */
  restoreInPlace(slot: number, record: SlotRecord): void {
    this.index(slot, record);
  }

  /** Makes room for `slots` slots, so a snapshot can load its vectors in place. */
  reserve(slots: number): void {
    this.ensureCapacity(slots);
  }

  /** Releases what the vectors hold open (the snapshot file compact vectors read from). */
  close(): void {
    this.vectors.close();
  }

  /** After restoring: every slot below the highest used one that is empty becomes free. */
  collectFreeSlots(slotCount: number): void {
    while (this.slots.length < slotCount) this.slots.push(undefined);
    for (let slot = slotCount - 1; slot >= 0; slot--) if (this.slots[slot] === undefined) this.free.push(slot);
  }

  /**
   * After restoring: the graph saved at `path` (if any), the live slots it lacks staged for insertion; a graph
   * holding slots that are not live is rebuilt from the live vectors (the records are the truth).
   */
  loadGraph(path: string): void {
    const { graph } = this;
    if (!graph) return; // a graph an earlier run saved is not read: this namespace searches without one
    const live = [...this.idToSlot.values()];
    if (!graph.load(path, live)) graph.rebuild(live, (slot) => this.vectorAt(slot));
  }

  /** A slot's exact values (a scratch buffer for compact vectors: valid until the next call). */
  vectorAt(slot: number): Float32Array {
    return this.vectors.read(slot);
  }

  private place(
    slot: number,
    input: SlotInput & Pick<VectorItem, 'chain'>,
    values: Float32Array,
    chain?: SlotChain,
  ): void {
    if (values.length !== this.dimension) {
      throw new Error(
        `vector for '${input.id}' has dimension ${values.length}, this namespace holds ${this.dimension}`,
      );
    }
    this.vectors.set(slot, values);
    this.lexical.add(slot, input, chain, input.chain?.unlent);
    this.index(slot, input);
  }

  /** Records slot `slot` (its values already set): its identity and metadata postings. */
  private index(slot: number, { id, metadata }: SlotRecord): void {
    // A replaced vector keeps the id string already held (the key of `idToSlot`, which setting does not change).
    const held = this.slots[slot]?.id;
    const record: SlotRecord = { id: held === id ? held : id, metadata: this.intern(metadata) };
    this.slots[slot] = record;
    this.idToSlot.set(id, slot);
    for (const key of postingKeysOf(record.metadata)) {
      const set = this.postings.get(key);
      if (set) set.add(slot);
      else this.postings.set(key, new SlotSet([slot]));
    }
  }

  /**
   * One frozen copy of each distinct metadata: a document's chunks carry the same, and a copy per slot cost about
   * 300 bytes each. Frozen, so nothing can change it under the slots that share it; callers get copies (search.ts).
   */
  private intern(metadata: VectorMetadata): VectorMetadata {
    // A batch holds a document's chunks one after another: the last one interned is the usual match.
    const last = this.lastInterned;
    if (last && last.uses > 0 && sameMetadata(last.metadata, metadata)) {
      last.uses++;
      return last.metadata;
    }
    const copy = { ...metadata, scopes: [...metadata.scopes], tags: [...metadata.tags] };
    const key = JSON.stringify(copy);
    let shared = this.sharedMetadata.get(key);
    if (shared) shared.uses++;
    else {
      Object.freeze(copy.scopes);
      Object.freeze(copy.tags);
      shared = { metadata: Object.freeze(copy), uses: 1 };
      this.sharedMetadata.set(key, shared);
    }
    this.lastInterned = shared;
    return shared.metadata;
  }

  private release(metadata: VectorMetadata): void {
    const key = JSON.stringify(metadata);
    const shared = this.sharedMetadata.get(key);
    if (shared && --shared.uses === 0) this.sharedMetadata.delete(key);
  }

  private unlinkPostings(slot: number): void {
    const record = this.slots[slot];
    if (!record) return;
    this.lexical.remove(slot);
    this.release(record.metadata);
    for (const key of postingKeysOf(record.metadata)) {
      const set = this.postings.get(key);
      set?.delete(slot);
      if (set?.size === 0) this.postings.delete(key);
    }
  }

  private ensureCapacity(slots: number): void {
    if (slots <= this.marks.length) return;
    this.vectors.reserve(slots); // a quarter more (vectors.ts grownCapacity)
    this.marks = new Uint8Array(this.vectors.inverseNorms.length);
  }
}

interface SharedMetadata {
  metadata: VectorMetadata;
  /** Slots using it; at 0 it is dropped from the map. */
  uses: number;
}

/** Equal metadata, field by field (the same fields in the same order, as JSON.stringify would compare them). */
function sameMetadata(a: VectorMetadata, b: VectorMetadata): boolean {
  const keysA = Object.keys(a);
  const keysB = Object.keys(b);
  if (keysA.length !== keysB.length) return false;
  for (let i = 0; i < keysA.length; i++) {
    const key = keysA[i] as keyof VectorMetadata;
    if (key !== keysB[i]) return false;
    const x = a[key];
    const y = b[key];
    if (Array.isArray(x) || Array.isArray(y)) {
      if (!Array.isArray(x) || !Array.isArray(y) || x.length !== y.length) return false;
      for (let j = 0; j < x.length; j++) if (x[j] !== y[j]) return false;
    } else if (x !== y) return false;
  }
  return true;
}
