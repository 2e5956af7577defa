import { closeSync, fsyncSync, openSync } from 'node:fs';
import type { TimeSlice } from '@memgate/core/history/time-slice';
import { readIntoAt, readIntoAtAsync, writeAll } from './durable-files.ts';
import { grown, grownCapacity, inverseNormOf, type SlotVectors } from './vectors.ts';

/** Slots read or written per block when a snapshot's vectors file is streamed (1 MiB at 512 dimensions). */
const BLOCK_SLOTS = 512;
/**
 * Rows per page of the vectors written since the last snapshot (512 KiB at 512 dimensions): pages are added, never
 * copied into a larger array, so a namespace growing under a load of adds leaves no garbage of grown copies.
 */
const PAGE_ROWS = 256;
/** A bound stored as float32 is rounded up by this much, so it never falls below the float64 it came from. */
const ROUND_UP = 1 + 2 ** -20;

/**
 * Vectors of a namespace without a graph, in a quarter of float32's memory: each slot's values as 8-bit codes times
 * a per-slot scale, with two bounds of its rounding (the largest error of one value, and the error's L2 norm), so a
 * cosine computed from the codes comes with an interval that holds the exact float32 one (cosine.ts). Search
 * computes the exact cosine only of the candidates whose interval could still reach its top (hybrid.ts, search.ts),
 * from the exact values: those written since the last snapshot are kept in memory (`recent`), the others are read
 * from the snapshot's vectors file by positioned reads (from the page cache, a few microseconds each). At 512
 * dimensions a slot holds 528 bytes instead of 2,052 (154 MB less at 100k vectors).
 */
export class CompactVectors implements SlotVectors {
  codes: Int8Array;
  scales: Float32Array;
  /** Per slot: the largest |value − scale × code|, rounded up (its dot with a query ≤ this × the query's L1 norm). */
  maxErrors: Float32Array;
  /** Per slot: ‖values − scale × codes‖₂, rounded up (its dot with a query ≤ this × the query's L2 norm). */
  errorNorms: Float32Array;
  inverseNorms: Float32Array;
  /** Exact values of the slots written since the last snapshot, one row each (`PAGE_ROWS` a page), by slot. */
  private readonly recentRows = new Map<number, number>();
  private recent: Float32Array[] = [];
  private recentCount = 0;
  /** The snapshot's vectors file the other slots are read from (none before the first snapshot). */
  private file: number | undefined;
  private readonly scratch: Float32Array;

  constructor(
    readonly dimension: number,
    capacity: number,
  ) {
    this.codes = new Int8Array(capacity * dimension);
    this.scales = new Float32Array(capacity);
    this.maxErrors = new Float32Array(capacity);
    this.errorNorms = new Float32Array(capacity);
    this.inverseNorms = new Float32Array(capacity);
    this.scratch = new Float32Array(dimension);
  }

  reserve(slots: number): void {
    const capacity = this.scales.length;
    if (slots <= capacity) return;
    const next = grownCapacity(capacity, slots);
    this.codes = grown(this.codes, next * this.dimension);
    this.scales = grown(this.scales, next);
    this.maxErrors = grown(this.maxErrors, next);
    this.errorNorms = grown(this.errorNorms, next);
    this.inverseNorms = grown(this.inverseNorms, next);
  }

  set(slot: number, values: Float32Array): void {
    this.encode(slot, values, 0);
    let row = this.recentRows.get(slot);
    if (row === undefined) {
      row = this.recentCount++;
      if (row % PAGE_ROWS === 0) this.recent.push(new Float32Array(PAGE_ROWS * this.dimension));
      this.recentRows.set(slot, row);
    }
    this.recentRow(row).set(values);
  }

  read(slot: number): Float32Array {
    const row = this.recentRows.get(slot);
    if (row !== undefined) return this.recentRow(row);
    const { scratch } = this;
    if (this.file === undefined) scratch.fill(0);
    else readIntoAt(this.file, bytesOf(scratch), slot * this.dimension * 4);
    return scratch;
  }

  async load(path: string, slotCount: number, slice: TimeSlice): Promise<void> {
    this.reserve(slotCount);
    const fd = openSync(path, 'r');
    this.replaceFile(fd); // first: closing the store closes it, also when loading stops half way
    const block = new Float32Array(BLOCK_SLOTS * this.dimension);
    for (let first = 0; first < slotCount; first += BLOCK_SLOTS) {
      const count = Math.min(BLOCK_SLOTS, slotCount - first);
      await readIntoAtAsync(fd, bytesOf(block.subarray(0, count * this.dimension)), first * this.dimension * 4);
      for (let i = 0; i < count; i++) {
        this.encode(first + i, block, i * this.dimension);
        if (i % 64 === 63 && slice.due()) await slice.giveWay();
      }
    }
  }

  save(path: string, slotCount: number): void {
    const fd = openSync(path, 'w');
    try {
      const block = new Float32Array(BLOCK_SLOTS * this.dimension);
      for (let first = 0; first < slotCount; first += BLOCK_SLOTS) {
        const count = Math.min(BLOCK_SLOTS, slotCount - first);
        const rows = block.subarray(0, count * this.dimension);
        if (this.file === undefined) rows.fill(0);
        else readIntoAt(this.file, bytesOf(rows), first * this.dimension * 4);
        for (let i = 0; i < count; i++) {
          const row = this.recentRows.get(first + i);
          if (row !== undefined) rows.set(this.recentRow(row), i * this.dimension);
        }
        writeAll(fd, Buffer.from(rows.buffer, rows.byteOffset, rows.byteLength));
      }
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  }

  savedTo(path: string): void {
    this.replaceFile(openSync(path, 'r'));
    this.recentRows.clear();
    this.recentCount = 0;
    this.recent = [];
  }

  close(): void {
    this.replaceFile(undefined);
  }

  private recentRow(row: number): Float32Array {
    const at = (row % PAGE_ROWS) * this.dimension;
    return (this.recent[Math.floor(row / PAGE_ROWS)] as Float32Array).subarray(at, at + this.dimension);
  }

  /** Codes, scale, error bounds and inverse norm of `slot` from `dimension` values of `values` at `at`. */
  private encode(slot: number, values: Float32Array, at: number): void {
    const { dimension, codes } = this;
    let largest = 0;
    for (let i = at; i < at + dimension; i++) largest = Math.max(largest, Math.abs(values[i] as number));
    const scale = Math.fround(largest / 127);
    const base = slot * dimension;
    let maxError = 0;
    let squaredError = 0;
    for (let i = 0; i < dimension; i++) {
      const value = values[at + i] as number;
      const code = scale > 0 ? Math.max(-127, Math.min(127, Math.round(value / scale))) : 0;
      codes[base + i] = code;
      const error = Math.abs(value - scale * code);
      if (error > maxError) maxError = error;
      squaredError += error * error;
    }
    this.scales[slot] = scale;
    this.maxErrors[slot] = Math.fround(maxError * ROUND_UP);
    this.errorNorms[slot] = Math.fround(Math.sqrt(squaredError) * ROUND_UP);
    this.inverseNorms[slot] = inverseNormOf(values, at, dimension);
  }

  private replaceFile(fd: number | undefined): void {
    if (this.file !== undefined) closeSync(this.file);
    this.file = fd;
  }
}

function bytesOf(values: Float32Array): Uint8Array {
  return new Uint8Array(values.buffer, values.byteOffset, values.byteLength);
}
