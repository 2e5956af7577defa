import { closeSync, fsyncSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** Writes all of `data` at the descriptor's position (writeSync may write less than asked). */
export function writeAll(fd: number, data: Buffer): void {
  let written = 0;
  while (written < data.length) written += writeSync(fd, data, written, data.length - written);
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
