import type { Confirmation, GenerationTag, VectorItem } from '@memgate/core';
import { ShownFile, type ShownRecord } from './shown-file.ts';

/** Below this many bytes a shown file is never compacted (a few confirmations must not rewrite it). */
const MIN_COMPACT_BYTES = 4 * 1024 * 1024;
/** Ids per record of a compacted file, so no line is one huge string. */
const RECORD_IDS = 1_000;

/**
 * What the index can show of a namespace's matches without a row read (VectorIndex.confirm): each chunk's text and
 * the tag it was last confirmed at. Kept apart from the vectors and postings (its own file, shown-file.ts), written
 * before them on each upsert and delete: a crash between the two leaves a text without a confirmation or a
 * confirmation cleared early, which cost a row read, never a stale result. Text in memory: about its UTF-16 size
 * (Latin-1 text is stored one byte a character by V8) plus ~100 bytes a chunk for the map entries.
 */
export class ShownTexts {
  private readonly texts = new Map<string, string>();
  private readonly confirmed = new Map<string, GenerationTag>();
  /** Roughly what a compacted file would take (characters of ids, texts and tags). */
  private liveBytes = 0;
  private readonly file: ShownFile;

  constructor(
    dir: string,
    private readonly minCompactBytes = MIN_COMPACT_BYTES,
  ) {
    this.file = ShownFile.open(dir, (record) => this.apply(record));
  }

  /** New texts (absent: none kept); every id's confirmation is cleared, as its content may have changed. */
  put(items: readonly VectorItem[]): void {
    this.write(['put', items.map((item): [string, string | null] => [item.id, item.text ?? null])]);
  }

  remove(ids: readonly string[]): void {
    const held = ids.filter((id) => this.texts.has(id) || this.confirmed.has(id));
    if (held.length > 0) this.write(['remove', held]);
  }

  /** Records the confirmations whose text is the one held for their id (others are stale: ignored). */
  confirm(confirmations: readonly Confirmation[]): void {
    const applied: [string, string][] = [];
    for (const { id, text, tag } of confirmations) {
      if (this.texts.get(id) === text && this.confirmed.get(id) !== tag) applied.push([id, tag]);
    }
    if (applied.length > 0) this.write(['confirm', applied]);
  }

  /** The text and tag of a confirmed id. */
  confirmedOf(id: string): { text: string; tag: GenerationTag } | undefined {
    const tag = this.confirmed.get(id);
    const text = tag === undefined ? undefined : this.texts.get(id);
    return text === undefined || tag === undefined ? undefined : { text, tag };
  }

  /** Bytes of its file now (tests: compaction). */
  get fileBytes(): number {
    return this.file.bytes;
  }

  close(): void {
    this.file.close();
  }

  /** Log first, then memory; the file is compacted once it is twice what it holds. */
  private write(record: ShownRecord): void {
    this.file.append([record]);
    this.apply(record);
    if (this.file.bytes > Math.max(this.minCompactBytes, 2 * this.liveBytes)) this.file.compact(this.records());
  }

  private apply([op, entries]: ShownRecord): void {
    if (op === 'put') {
      for (const [id, text] of entries) {
        this.forget(id);
        if (text !== null) {
          this.texts.set(id, text);
          this.liveBytes += id.length + text.length + 8;
        }
      }
    } else if (op === 'remove') {
      for (const id of entries) this.forget(id);
    } else {
      for (const [id, tag] of entries) {
        if (!this.texts.has(id)) continue;
        const old = this.confirmed.get(id);
        this.liveBytes += tag.length - (old === undefined ? -id.length - 8 : old.length);
        this.confirmed.set(id, tag);
      }
    }
  }

  private forget(id: string): void {
    const text = this.texts.get(id);
    if (text !== undefined) this.liveBytes -= id.length + text.length + 8;
    const tag = this.confirmed.get(id);
    if (tag !== undefined) this.liveBytes -= id.length + tag.length + 8;
    this.texts.delete(id);
    this.confirmed.delete(id);
  }

  private *records(): Generator<ShownRecord> {
    const texts: [string, string][] = [];
    for (const entry of this.texts) {
      texts.push(entry);
      if (texts.length === RECORD_IDS) yield ['put', texts.splice(0)];
    }
    if (texts.length > 0) yield ['put', texts];
    const tags: [string, string][] = [];
    for (const entry of this.confirmed) {
      tags.push(entry);
      if (tags.length === RECORD_IDS) yield ['confirm', tags.splice(0)];
    }
    if (tags.length > 0) yield ['confirm', tags];
  }
}
