import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { chunkTerms, queryTermFrequencies, type VectorItem, type VectorMatch } from '@memgate/core';
import { afterEach, describe, expect, it } from 'vitest';
import { axisVector, metadataFor } from '../../../../test/conformance/vector-index.ts';
import type { LocalVectorIndex } from './index.ts';
import { closeOpenedIndexes, freshDir as freshIndexDir, openIndex } from './test-indexes.ts';

afterEach(closeOpenedIndexes);

const WORDS = 'pottery violin recital garden invoice refund museum concert painting sunset harbour lantern'.split(' ');
/** A conversation of `count` turns: each chunk with its own terms and its neighbours' (the add's window). */
function turns(count: number, prefix: string, documents = 4): VectorItem[] {
  const texts = Array.from({ length: count }, (_, i) =>
    Array.from({ length: 3 + (i % 5) }, (_, j) => WORDS[(i * 7 + j * j * 5 + (i % 3)) % WORDS.length]).join(' '),
  );
  return chunkTerms(texts).map((terms, i) => ({
    id: `${prefix}-${i}`,
    // Distinct directions, so no two chunks tie (the order of ties may differ after a restart, see `rounded`).
    values: Float32Array.from({ length: 16 }, (_, d) => Math.sin((i + 1) * (d + 1) + prefix.charCodeAt(0))),
    metadata: metadataFor({ documentId: `doc-${i % documents}`, fileName: `f-${i % documents}.txt` }),
    ...terms,
  }));
}

/**
 * The answers with scores to 12 digits, equal scores by id: a restart sums the tenant's total length in slot order
 * and holds postings in slot order, the live process in the order of its adds and deletes, so the last bits of a
 * score and the order of ties may differ (as they always did).
 */
const rounded = (answers: VectorMatch[][]) =>
  answers.map((matches) =>
    matches
      .map((match) => ({ ...match, score: match.score.toFixed(12) }))
      .sort((a, b) => b.score.localeCompare(a.score) || a.id.localeCompare(b.id)),
  );

const QUERIES = ['pottery recital', 'invoice refund harbour', 'museum', 'sunset lantern garden painting'];
async function answers(index: LocalVectorIndex) {
  const found = await Promise.all(
    QUERIES.map((text, i) =>
      index.query('user:u1', {
        vector: axisVector(16, i * 3),
        terms: queryTermFrequencies(text),
        lexicalWeight: 0.8,
        topK: 8,
        filter: i === 3 ? { documentId: 'doc-1' } : undefined,
      }),
    ),
  );
  return rounded(found);
}

/** Adds, deletes and re-adds (freed slots are reused, so postings are not in slot order), then the answers. */
async function history(index: LocalVectorIndex): Promise<void> {
  await index.upsert('user:u1', turns(40, 'a'));
  await index.delete('user:u1', ['a-3', 'a-10', 'a-11', 'a-25']);
  await index.upsert('user:u1', turns(6, 'b'));
  await index.upsert('user:u1', turns(12, 'a').slice(8)); // a-8..a-11 again, new terms for a-8 and a-9
}

const freshDir = () => freshIndexDir('memgate-snapshot-');

/** A records file of the current format (JSON lines: header, metadata, records) as one object. */
function recordsOf(path: string): { slotCount: number; metadata: unknown[]; records: [number, string, number][] } {
  const [header, ...lines] = readFileSync(path, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => JSON.parse(line));
  const { slotCount, metadataLines } = header as { slotCount: number; metadataLines: number };
  return { slotCount, metadata: lines.slice(0, metadataLines).flat(), records: lines.slice(metadataLines).flat() };
}

/** An index in a fresh directory that held `history` and was closed: its answers then, and its snapshot file ending so. */
async function closedSnapshot(
  ending: string,
): Promise<{ dir: string; before: Awaited<ReturnType<typeof answers>>; file: string }> {
  const dir = freshDir();
  const live = await openIndex(dir);
  await history(live);
  const before = await answers(live);
  await live.close();
  const [namespaceDir] = readdirSync(dir);
  const folder = join(dir, namespaceDir as string);
  return { dir, before, file: join(folder, readdirSync(folder).find((name) => name.endsWith(ending)) as string) };
}

describe('local vector index: snapshots', () => {
  it('answers after a restart exactly as the process that wrote the index (scores, order, deletes)', async () => {
    const dir = freshDir();
    const live = await openIndex(dir);
    await history(live);
    const before = await answers(live);
    await live.close(); // writes a snapshot
    const restarted = await openIndex(dir);
    expect(await answers(restarted)).toEqual(before);

    // Removing a chunk after the restart changes the statistics exactly as it does in a process never restarted.
    const neverRestarted = await openIndex(freshDir());
    await history(neverRestarted);
    for (const index of [restarted, neverRestarted]) await index.delete('user:u1', ['a-0', 'a-20', 'b-2']);
    expect(await answers(restarted)).toEqual(await answers(neverRestarted));
  });

  it('reads a snapshot written by the first format (each record with its terms, no lexical file)', async () => {
    const dir = freshDir();
    const live = await openIndex(dir, 1); // a snapshot after every batch
    const items = turns(30, 'a');
    await live.upsert('user:u1', items);
    const before = await answers(live);
    await live.close();
    const [namespaceDir] = readdirSync(dir);
    const files = readdirSync(join(dir, namespaceDir as string));
    const recordsFile = join(
      dir,
      namespaceDir as string,
      files.find((name) => name.endsWith('.records.json')) as string,
    );
    const current = recordsOf(recordsFile);
    const byId = new Map(items.map((item) => [item.id, item]));
    const records = current.records.map(([slot, id, position]) => {
      const { terms, contextTerms } = byId.get(id) as VectorItem;
      return [slot, { id, metadata: current.metadata[position], terms, contextTerms }];
    });
    writeFileSync(recordsFile, JSON.stringify({ slotCount: current.slotCount, records }));
    rmSync(recordsFile.replace('.records.json', '.lexical'));

    const reopened = await openIndex(dir);
    expect(await answers(reopened)).toEqual(before);
    await reopened.delete('user:u1', ['a-4']);
    await reopened.upsert('user:u1', turns(8, 'c'));
    await reopened.close(); // and writes the current format from it
    expect(readdirSync(join(dir, namespaceDir as string)).some((name) => name.endsWith('.lexical'))).toBe(true);
    const control = await openIndex(freshDir());
    await control.upsert('user:u1', items);
    await control.delete('user:u1', ['a-4']);
    await control.upsert('user:u1', turns(8, 'c'));
    expect(await answers(await openIndex(dir))).toEqual(await answers(control));
  });
  it('reads a records file of the second format (one JSON object)', async () => {
    const { dir, before, file: recordsFile } = await closedSnapshot('.records.json');
    expect(readFileSync(recordsFile, 'utf8').split('\n').length).toBeGreaterThan(3); // format 3: lines
    writeFileSync(recordsFile, JSON.stringify({ format: 2, ...recordsOf(recordsFile) }));
    expect(await answers(await openIndex(dir))).toEqual(before);
  });

  it.each([1, 2] as const)(
    'reads a lexical file of version %i (no chains; v1: float64 frequencies, no table)',
    async (version) => {
      const { dir, before, file: lexicalFile } = await closedSnapshot('.lexical');
      writeFileSync(lexicalFile, olderVersionOf(readFileSync(lexicalFile), version));

      const reopened = await openIndex(dir);
      expect(await answers(reopened)).toEqual(before);
      const neverRestarted = await openIndex(freshDir());
      await history(neverRestarted);
      for (const index of [reopened, neverRestarted]) await index.delete('user:u1', ['a-0', 'b-2']);
      expect(await answers(reopened)).toEqual(await answers(neverRestarted));
    },
  );
});

/**
 * A lexical file of this version (no chains in it) rewritten as version 1 wrote it (no table, each frequency as a
 * float64) or as version 2 did (no chains, no holdings per term).
 */
function olderVersionOf(file: Buffer, version: 1 | 2): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  const take = (bytes: number) => {
    at += bytes;
    return file.subarray(at - bytes, at);
  };
  const header = take(16);
  const slotCount = header.readUInt32LE(8);
  expect(header.readUInt32LE(4)).toBe(3);
  header.writeUInt32LE(version, 4);
  parts.push(header, take(slotCount * 8));
  expect(take(slotCount).every((kind) => kind === 0)).toBe(true); // no slot written with its chain
  take(slotCount * 4 * 4 + slotCount * 4);
  take(take(4).readUInt32LE(0) * 8);
  const tableBytes = take(4);
  const table = take(tableBytes.readUInt32LE(0) * 8);
  if (version === 2) parts.push(tableBytes, table);
  while (at < file.length) {
    const [term, count, kind] = [0, 1, 2].map((i) => file.readUInt32LE(at + i * 4)) as [number, number, number];
    at += 16;
    const ids = Buffer.alloc(version === 2 ? 12 : 8);
    ids.writeUInt32LE(term, 0);
    ids.writeUInt32LE(count, 4);
    if (version === 2) ids.writeUInt32LE(kind, 8);
    parts.push(ids, take(count * 4));
    if (version === 2) {
      parts.push(take(count * (kind === 0 ? 2 : 8)));
      continue;
    }
    const values = Buffer.alloc(count * 8);
    for (let i = 0; i < count; i++) {
      const value = kind === 0 ? table.readDoubleLE(take(2).readUInt16LE(0) * 8) : take(8).readDoubleLE(0);
      values.writeDoubleLE(value, i * 8);
    }
    parts.push(values);
  }
  return Buffer.concat(parts);
}
