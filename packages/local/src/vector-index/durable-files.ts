import {
  closeSync,
  fsyncSync,
  openSync,
  read,
  readFileSync,
  readSync,
  renameSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TimeSlice } from '@memgate/core/history/time-slice';

const readAsync = promisify(read);

/** Writes all of `data` at the descriptor's position (writeSync may write less than asked). */
export function writeAll(fd: number, data: Buffer): void {
  let written = 0;
  while (written < data.length) written += writeSync(fd, data, written, data.length - written);
}

/**
 * Reads `length` bytes of the file at `position` into the start of `into` (readSync may read less than asked);
 * throws `shortFile` if the file ends first.
 */
export function readAllAt(fd: number, into: Buffer, length: number, position: number, shortFile: string): void {
  if (readUpTo(fd, into, length, position) < length) throw new Error(shortFile);
}

/** Fills `target` from the file at `position`; the bytes past the file's end are set to zero. */
export function readIntoAt(fd: number, target: Uint8Array, position: number): void {
  target.fill(0, readUpTo(fd, target, target.length, position));
}

/** Reads `length` bytes at `position` into the start of `into`, or fewer where the file ends: how many. */
function readUpTo(fd: number, into: Uint8Array, length: number, position: number): number {
  let filled = 0;
  while (filled < length) {
    const read = readSync(fd, into, filled, length - filled, position + filled);
    if (read === 0) break;
    filled += read;
  }
  return filled;
}

/**
 * As `readIntoAt`, off the event loop (a snapshot's files are read while other requests are served): the bytes
 * past the file's end are set to zero.
 */
export async function readIntoAtAsync(fd: number, target: Uint8Array, position: number): Promise<void> {
  target.fill(0, await readUpToAsync(fd, target, 0, target.length, position));
}

/** Reads `length` bytes at `position` into `into` from `at`, or fewer where the file ends: how many. */
export async function readUpToAsync(
  fd: number,
  into: Uint8Array,
  at: number,
  length: number,
  position: number,
): Promise<number> {
  let filled = 0;
  while (filled < length) {
    const { bytesRead } = await readAsync(fd, into, at + filled, length - filled, position + filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  return filled;
}

export function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export function writeDurably(path: string, data: string | Buffer): void {
  writeFileSync(path, data);
  syncFile(path);
}

/** Replaces `dir/name` atomically (write aside, fsync, rename): a crash leaves the old or the new one, never half. */
export function replaceFile(dir: string, name: string, data: string): void {
  const temporary = join(dir, `${name}.tmp`);
  writeDurably(temporary, data);
  renameSync(temporary, join(dir, name));
}

/** A JSON file's content, or undefined when there is no such file. */
export function readJsonIfPresent<T>(path: string): T | undefined {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/**
 * Calls `onLine` with each complete line of the file open at `fd` (without its newline, a view valid only during the
 * call) and the offset it starts at, read through a buffer of `chunkBytes` (grown only for a longer line), so the
 * file is never in memory whole (a namespace's shown texts were ~110 MB at 100k chunks). The reads are off the event
 * loop, and the loop is given back between two lines whenever `slice` is used up (replaying them was ~0.9 s of CPU
 * at 100k chunks). Returns the offset just past the last complete line: the file's length, or where a torn last
 * line starts.
 */
export async function forEachLine(
  fd: number,
  onLine: (line: Buffer, at: number) => void,
  slice: TimeSlice,
  chunkBytes = 1 << 20,
): Promise<number> {
  let buffer = Buffer.allocUnsafe(chunkBytes);
  let position = 0; // the file offset of buffer[0]
  let held = 0; // bytes of an unfinished line at the start of the buffer
  for (;;) {
    if (held === buffer.length) {
      const larger = Buffer.allocUnsafe(buffer.length * 2);
      buffer.copy(larger, 0, 0, held);
      buffer = larger;
    }
    const read = await readUpToAsync(fd, buffer, held, buffer.length - held, position + held);
    if (read === 0) return position;
    const filled = buffer.subarray(0, held + read);
    let start = 0;
    for (let end = filled.indexOf(10, held); end >= 0; start = end + 1, end = filled.indexOf(10, start)) {
      onLine(filled.subarray(start, end), position + start);
      if (slice.due()) await slice.giveWay();
    }
    held = filled.length - start;
    buffer.copy(buffer, 0, start, filled.length);
    position += start;
  }
}
