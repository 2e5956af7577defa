import { closeSync, openSync } from 'node:fs';
import type { TimeSlice } from '@memgate/core/history/time-slice';
import { readIntoAtAsync, writeDurably } from './durable-files.ts';

/**
 * A namespace's vectors by slot, as the index keeps them in memory: all float32 (`FloatVectors`, the HNSW graph's
 * namespaces), or 8-bit with exact values read on demand (`CompactVectors`, compact-vectors.ts: the namespaces
 * without a graph). Both write and read the same snapshot file: every slot's float32 values at `slot × dimension`.
 */
export interface SlotVectors {
  readonly dimension: number;
  /** 1/‖v‖ per slot (0 for the zero vector), so a cosine costs one dot product. */
  readonly inverseNorms: Float32Array;
  /** Makes room for `slots` slots. */
  reserve(slots: number): void;
  /** Writes a slot's values (a vector written since the last snapshot). */
  set(slot: number, values: Float32Array): void;
  /** A slot's exact float32 values; valid until the next call (it may be a scratch buffer). */
  read(slot: number): Float32Array;
  /**
   * Reads slots `[0, slotCount)` from a snapshot's vectors file (a short file reads as zeros past its end), off the
   * event loop, giving the loop back whenever `slice` is used up.
   */
  load(path: string, slotCount: number, slice: TimeSlice): Promise<void>;
  /** Writes slots `[0, slotCount)` to `path` durably; the store then reads from it (`savedTo`). */
  save(path: string, slotCount: number): void;
  /** The file `save` wrote is complete: what the store read from before may be dropped. */
  savedTo(path: string): void;
  close(): void;
}

/** Every vector as float32 in one arena (the graph inserts from it and search rescores its proposals from it). */
export class FloatVectors implements SlotVectors {
  arena: Float32Array;
  inverseNorms: Float32Array;

  constructor(
    readonly dimension: number,
    capacity: number,
  ) {
    this.arena = new Float32Array(capacity * dimension);
    this.inverseNorms = new Float32Array(capacity);
  }

  reserve(slots: number): void {
    const capacity = this.inverseNorms.length;
    if (slots <= capacity) return;
    const next = grownCapacity(capacity, slots);
    this.arena = grown(this.arena, next * this.dimension);
    this.inverseNorms = grown(this.inverseNorms, next);
  }

  set(slot: number, values: Float32Array): void {
    this.arena.set(values, slot * this.dimension);
    this.inverseNorms[slot] = inverseNormOf(values, 0, this.dimension);
  }

  read(slot: number): Float32Array {
    return this.arena.subarray(slot * this.dimension, (slot + 1) * this.dimension);
  }

  async load(path: string, slotCount: number, slice: TimeSlice): Promise<void> {
    this.reserve(slotCount);
    // The vectors go straight into the arena: no second copy of them, even for a moment.
    const target = this.arena.subarray(0, slotCount * this.dimension);
    const fd = openSync(path, 'r');
    try {
      await readIntoAtAsync(fd, new Uint8Array(target.buffer, target.byteOffset, target.byteLength), 0);
    } finally {
      closeSync(fd);
    }
    for (let slot = 0; slot < slotCount; slot++) {
      this.inverseNorms[slot] = inverseNormOf(this.arena, slot * this.dimension, this.dimension);
      if (slot % 256 === 255 && slice.due()) await slice.giveWay();
    }
  }

  save(path: string, slotCount: number): void {
    const vectors = this.arena.subarray(0, slotCount * this.dimension);
    writeDurably(path, Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength));
  }

  savedTo(): void {}

  close(): void {}
}

/**
 * A quarter more, not double: vectors are most of a namespace's memory, and a 100k-slot tenant loaded exactly to
 * size would otherwise take 200 MB more (float32 at 512 dimensions) for its first new vector.
 */
export function grownCapacity(capacity: number, slots: number): number {
  return Math.max(slots, capacity + Math.max(1024, Math.ceil(capacity / 4)));
}

/** A copy of `array` in a new array of `length` values (the rest zero). */
export function grown<T extends Float32Array | Int8Array>(array: T, length: number): T {
  const next = new (array.constructor as new (length: number) => T)(length);
  next.set(array);
  return next;
}

/** 1/‖v‖ of `dimension` values from `at` (0 for the zero vector), summed in float64 in index order. */
export function inverseNormOf(values: Float32Array, at: number, dimension: number): number {
  let squared = 0;
  for (let i = at; i < at + dimension; i++) squared += (values[i] as number) * (values[i] as number);
  return squared > 0 ? 1 / Math.sqrt(squared) : 0;
}
