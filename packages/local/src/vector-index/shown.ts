import type { Confirmation, GenerationTag, VectorItem } from '@memgate/core';
import { createTimeSlice, type TimeSlice } from '@memgate/core/history/time-slice';
import { ShownFile, type ShownRecord } from './shown-file.ts';

/** Below this many bytes a shown file is never compacted (a few confirmations must not rewrite it). */
const MIN_COMPACT_BYTES = 4 * 1024 * 1024;
/** Ids per record of a compacted file, so no line is one huge string. */
const RECORD_IDS = 1_000;
/** A text's place in the file as one number: offset × 2^21 + length (a text's JSON above 2 MiB is not kept). */
const LENGTH_BITS = 2 ** 21;

type PutEntry = [id: string, text: string | null];

/**
 * A put record's line, and where each entry's text (as a JSON string) lies in it. Built the same way when written
 * and when replayed, so the offsets of a replayed line are those of the bytes on disk.
 */
function putLine(entries: readonly PutEntry[]): { line: Buffer; texts: [id: string, at: number, bytes: number][] } {
  const parts: string[] = ['["put",['];
  let bytes = Buffer.byteLength(parts[0] as string);
  const texts: [string, number, number][] = [];
  entries.forEach(([id, text], i) => {
    const head = `${i > 0 ? ',' : ''}[${JSON.stringify(id)},`;
    const json = JSON.stringify(text);
    bytes += Buffer.byteLength(head);
    const size = Buffer.byteLength(json);
    if (text !== null) texts.push([id, bytes, size]);
    parts.push(head, json, ']');
    bytes += size + 1;
  });
  parts.push(']]\n');
  return { line: Buffer.from(parts.join(''), 'utf8'), texts };
}

const recordLine = (record: ShownRecord) => Buffer.from(`${JSON.stringify(record)}\n`, 'utf8');

/**
 * What the index can show of a namespace's matches without a row read (VectorIndex.confirm): each chunk's text and
 * the tag it was last confirmed at. Kept apart from the vectors and postings (its own file, shown-file.ts), written
 * before them on each upsert and delete: a crash between the two leaves a text without a confirmation or a
 * confirmation cleared early, which cost a row read, never a stale result. The texts stay on disk: memory holds
 * where each one is (a number, ~80 bytes a chunk with its map entry) and the tags; a search reads the few it shows
 * (from the page cache, a few microseconds each), a confirmation reads the one it checks.
 */
export class ShownTexts {
  /** Where each id's text is in the current file (LENGTH_BITS). */
  private readonly texts = new Map<string, number>();
  private readonly confirmed = new Map<string, GenerationTag>();
  /** Roughly what a compacted file would take (bytes of ids, texts and tags). */
  private liveBytes = 0;
  private file!: ShownFile;

  /**
   * `idOf`: the index's own copy of an id (NamespaceStore.heldId), so an id read from this file or from a
   * confirmation is not held a second time as a key here (~60 bytes an id, two maps: ~12 MiB at 100k chunks).
   */
  private constructor(
    private readonly minCompactBytes: number,
    private readonly idOf: (id: string) => string,
  ) {}

  /**
   * The shown texts kept in `dir`, read back from their file (giving the event loop back whenever `slice` is used
   * up); below `minCompactBytes` the file is never compacted.
   */
  static async open(
    dir: string,
    {
      minCompactBytes = MIN_COMPACT_BYTES,
      idOf = (id: string) => id,
      slice = createTimeSlice(),
    }: { minCompactBytes?: number; idOf?: (id: string) => string; slice?: TimeSlice } = {},
  ): Promise<ShownTexts> {
    const shown = new ShownTexts(minCompactBytes, idOf);
    shown.file = await ShownFile.open(dir, (record, at) => shown.apply(record, at), slice);
    return shown;
  }

  /** New texts (absent: none kept); every id's confirmation is cleared, as its content may have changed. */
  put(items: readonly VectorItem[]): void {
    const entries = items.map((item): PutEntry => [item.id, item.text ?? null]);
    const { line, texts } = putLine(entries);
    const at = this.file.append(line);
    this.applyPut(entries, texts, at);
    this.compactIfLarge();
  }

  remove(ids: readonly string[]): void {
    const held = ids.filter((id) => this.texts.has(id) || this.confirmed.has(id));
    if (held.length > 0) this.write(['remove', held]);
  }

  /** Records the confirmations whose text is the one held for their id (others are stale: ignored). */
  confirm(confirmations: readonly Confirmation[]): void {
    const applied: [string, string][] = [];
    for (const { id, text, tag } of confirmations) {
      if (this.confirmed.get(id) !== tag && this.textOf(id) === text) applied.push([id, tag]);
    }
    if (applied.length > 0) this.write(['confirm', applied]);
  }

  /** The text and tag of a confirmed id. */
  confirmedOf(id: string): { text: string; tag: GenerationTag } | undefined {
    const tag = this.confirmed.get(id);
    const text = tag === undefined ? undefined : this.textOf(id);
    return text === undefined || tag === undefined ? undefined : { text, tag };
  }

  /** Bytes of its file now (tests: compaction). */
  get fileBytes(): number {
    return this.file.bytes;
  }

  close(): void {
    this.file.close();
  }

  private textOf(id: string): string | undefined {
    const place = this.texts.get(id);
    if (place === undefined) return undefined;
    const bytes = place % LENGTH_BITS;
    return JSON.parse(this.file.read((place - bytes) / LENGTH_BITS, bytes)) as string;
  }

  /** Log first, then memory; the file is compacted once it is twice what it holds. */
  private write(record: ShownRecord): void {
    this.file.append(recordLine(record));
    this.apply(record, -1);
    this.compactIfLarge();
  }

  private compactIfLarge(): void {
    if (this.file.bytes <= Math.max(this.minCompactBytes, 2 * this.liveBytes)) return;
    const places = new Map<string, number>();
    this.file.compact(this.lines(places));
    for (const [id, place] of places) this.texts.set(id, place);
  }

  private apply(record: ShownRecord, at: number): void {
    if (record[0] === 'put') {
      const { texts } = putLine(record[1]);
      this.applyPut(record[1], texts, at);
    } else if (record[0] === 'remove') {
      for (const id of record[1]) this.forget(id);
    } else {
      for (const [id, tag] of record[1]) {
        if (!this.texts.has(id)) continue;
        const old = this.confirmed.get(id);
        this.liveBytes += tag.length - (old === undefined ? -id.length - 8 : old.length);
        this.confirmed.set(old === undefined ? this.idOf(id) : id, tag); // an existing entry keeps its key
      }
    }
  }

  private applyPut(entries: readonly PutEntry[], texts: readonly [string, number, number][], at: number): void {
    for (const [id] of entries) this.forget(id);
    for (const [id, offset, bytes] of texts) {
      if (bytes >= LENGTH_BITS) continue;
      this.texts.set(this.idOf(id), (at + offset) * LENGTH_BITS + bytes);
      this.liveBytes += id.length + bytes + 8;
    }
  }

  private forget(id: string): void {
    const place = this.texts.get(id);
    if (place !== undefined) this.liveBytes -= id.length + (place % LENGTH_BITS) + 8;
    const tag = this.confirmed.get(id);
    if (tag !== undefined) this.liveBytes -= id.length + tag.length + 8;
    this.texts.delete(id);
    this.confirmed.delete(id);
  }

  /** The current state as lines of a new file, read from the old one; `places` gets each text's place in the new. */
  private *lines(places: Map<string, number>): Generator<Buffer> {
    let at = 0;
    const ids = [...this.texts.keys()];
    for (let start = 0; start < ids.length; start += RECORD_IDS) {
      const entries = ids.slice(start, start + RECORD_IDS).map((id): PutEntry => [id, this.textOf(id) ?? null]);
      const { line, texts } = putLine(entries);
      for (const [id, offset, bytes] of texts) places.set(id, (at + offset) * LENGTH_BITS + bytes);
      at += line.length;
      yield line;
    }
    const tags: [string, string][] = [];
    for (const entry of this.confirmed) {
      tags.push(entry);
      if (tags.length === RECORD_IDS) {
        const line = recordLine(['confirm', tags.splice(0)]);
        at += line.length;
        yield line;
      }
    }
    if (tags.length > 0) yield recordLine(['confirm', tags]);
  }
}
