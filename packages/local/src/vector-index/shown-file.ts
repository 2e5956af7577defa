import {
  closeSync,
  fsyncSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';

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
  private generation: number;
  bytes: number;

  private constructor(
    private readonly dir: string,
    generation: number,
    bytes: number,
  ) {
    this.generation = generation;
    this.fd = openSync(logPath(dir, generation), 'a');
    this.bytes = bytes;
  }

  /** Opens the current file of `dir` (none yet: an empty one), replaying its records into `apply`. */
  static open(dir: string, apply: (record: ShownRecord) => void): ShownFile {
    const generation = readManifest(dir);
    removeOthers(dir, generation);
    const path = logPath(dir, generation);
    let data: Buffer;
    try {
      data = readFileSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      data = Buffer.alloc(0);
    }
    let start = 0;
    for (let end = data.indexOf(10, start); end >= 0; start = end + 1, end = data.indexOf(10, start)) {
      apply(JSON.parse(data.toString('utf8', start, end)) as ShownRecord);
    }
    if (start < data.length) writeFileSync(path, data.subarray(0, start)); // a torn last line
    return new ShownFile(dir, generation, start);
  }

  append(records: readonly ShownRecord[]): void {
    const out = Buffer.from(records.map((record) => `${JSON.stringify(record)}\n`).join(''), 'utf8');
    let written = 0;
    while (written < out.length) written += writeSync(this.fd, out, written, out.length - written);
    this.bytes += out.length;
  }

  /** Replaces the file with `records` (the whole current state), durably, then removes the old one. */
  compact(records: Iterable<ShownRecord>): void {
    const next = this.generation + 1;
    const path = logPath(this.dir, next);
    const fd = openSync(path, 'w');
    let bytes = 0;
    try {
      for (const record of records) {
        const line = Buffer.from(`${JSON.stringify(record)}\n`, 'utf8');
        let written = 0;
        while (written < line.length) written += writeSync(fd, line, written, line.length - written);
        bytes += line.length;
      }
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    const temporary = join(this.dir, `${MANIFEST}.tmp`);
    const manifest = openSync(temporary, 'w');
    try {
      writeSync(manifest, JSON.stringify({ generation: next } satisfies ShownManifest));
      fsyncSync(manifest);
    } finally {
      closeSync(manifest);
    }
    renameSync(temporary, join(this.dir, MANIFEST));
    closeSync(this.fd);
    this.generation = next;
    this.fd = openSync(path, 'a');
    this.bytes = bytes;
    removeOthers(this.dir, next);
  }

  close(): void {
    closeSync(this.fd);
  }
}

function readManifest(dir: string): number {
  try {
    return (JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8')) as ShownManifest).generation;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}

/** Removes every shown file but generation `keep` (an older one, or a newer one a crash left unfinished). */
function removeOthers(dir: string, keep: number): void {
  for (const name of readdirSync(dir)) {
    const match = /^shown-(\d+)\.log$/.exec(name);
    if (match && Number(match[1]) !== keep) rmSync(join(dir, name), { force: true });
  }
}
