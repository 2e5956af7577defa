import { closeSync, fstatSync, fsyncSync, ftruncateSync, openSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { TimeSlice } from '@memgate/core/history/time-slice';
import { forEachLine, readAllAt, readJsonIfPresent, replaceFile, writeAll } from './durable-files.ts';

/**
 * One change to a namespace's shown texts (shown.ts): `put` sets or clears texts (and clears their confirmations),
 * `remove` drops ids, `confirm` records tags. Logged as one JSON line each.
 */
export type ShownRecord =
  | ['put', [id: string, text: string | null][]]
  | ['remove', string[]]
  | ['confirm', [id: string, tag: string][]];

/** `shown.json`: which file of the namespace's shown texts is current. Its own generations, apart from the index's. */
interface ShownManifest {
  generation: number;
}

const MANIFEST = 'shown.json';
const logPath = (dir: string, generation: number) => join(dir, `shown-${generation}.log`);

/**
 * The shown texts' file in a namespace directory: `shown-N.log`, JSON lines, each appended with one write. It starts
 * with the state it was compacted from and grows by appends; compaction writes `shown-(N+1).log` aside, syncs it and
 * then points `shown.json` at it (atomic rename), so a crash leaves the old file or the new one, never half. A crash
 * mid-append leaves at most one unterminated line at the end, which reading drops (that change never returned).
 */
export class ShownFile {
  private fd: number;
  /** The same file opened for reading the texts it holds (ShownTexts keeps only where they are). */
  private readFd: number;
  private generation: number;
  bytes: number;

  private constructor(
    private readonly dir: string,
    generation: number,
    bytes: number,
  ) {
    this.generation = generation;
    this.fd = openSync(logPath(dir, generation), 'a');
    this.readFd = openSync(logPath(dir, generation), 'r');
    this.bytes = bytes;
  }

  /**
   * Opens the current file of `dir` (none yet: an empty one), replaying its records into `apply` with the offset
   * each record's line starts at, giving the event loop back between records whenever `slice` is used up.
   */
  static async open(
    dir: string,
    apply: (record: ShownRecord, at: number) => void,
    slice: TimeSlice,
  ): Promise<ShownFile> {
    const generation = readManifest(dir);
    removeOthers(dir, generation);
    const path = logPath(dir, generation);
    const fd = openSync(path, 'a+');
    try {
      const replay = (line: Buffer, at: number) => apply(JSON.parse(line.toString('utf8')) as ShownRecord, at);
      const end = await forEachLine(fd, replay, slice);
      if (end < fstatSync(fd).size) ftruncateSync(fd, end); // a torn last line
      return new ShownFile(dir, generation, end);
    } finally {
      closeSync(fd);
    }
  }

  /** Appends one line (a record and its newline) with one write; returns the offset it starts at. */
  append(line: Buffer): number {
    const at = this.bytes;
    writeAll(this.fd, line);
    this.bytes += line.length;
    return at;
  }

  /** `bytes` bytes of the current file from `at`, as UTF-8. */
  read(at: number, bytes: number): string {
    const out = Buffer.allocUnsafe(bytes);
    readAllAt(this.readFd, out, bytes, at, 'shown texts: file shorter than expected');
    return out.toString('utf8');
  }

  /**
   * Replaces the file with `lines` (the whole current state, each line's offset in the new file being the sum of the
   * lines before it), durably, then removes the old one. Lines are built from the old file, which stays readable
   * until they are all written.
   */
  compact(lines: Iterable<Buffer>): void {
    const next = this.generation + 1;
    const path = logPath(this.dir, next);
    const fd = openSync(path, 'w');
    let bytes = 0;
    try {
      for (const line of lines) {
        writeAll(fd, line);
        bytes += line.length;
      }
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    replaceFile(this.dir, MANIFEST, JSON.stringify({ generation: next } satisfies ShownManifest));
    closeSync(this.fd);
    closeSync(this.readFd);
    this.generation = next;
    this.fd = openSync(path, 'a');
    this.readFd = openSync(path, 'r');
    this.bytes = bytes;
    removeOthers(this.dir, next);
  }

  close(): void {
    closeSync(this.fd);
    closeSync(this.readFd);
  }
}

function readManifest(dir: string): number {
  return readJsonIfPresent<ShownManifest>(join(dir, MANIFEST))?.generation ?? 0;
}

/** Removes every shown file but generation `keep` (an older one, or a newer one a crash left unfinished). */
function removeOthers(dir: string, keep: number): void {
  for (const name of readdirSync(dir)) {
    const match = /^shown-(\d+)\.log$/.exec(name);
    if (match && Number(match[1]) !== keep) rmSync(join(dir, name), { force: true });
  }
}
