import { appendFileSync, mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chunkTerms, type VectorItem } from '@memgate/core';
import { describe, expect, it } from 'vitest';
import { metadataFor } from '../../../../test/conformance/vector-index.ts';
import { collectGarbage } from './collect-garbage.ts';
import { encodeEntry, type JournalEntry, RecordBuffer, readJournal } from './journal.ts';

/** Every entry of the journal at `path`, read to its end. */
async function entriesOf(path: string, dimension: number): Promise<JournalEntry[]> {
  const entries: JournalEntry[] = [];
  for await (const entry of readJournal(path, dimension)) entries.push(entry);
  return entries;
}

const DIMENSION = 8;
const texts = ['pottery class on sunday', 'violin recital at the harbour', 'sunday market'];
const items: VectorItem[] = chunkTerms(texts).map((terms, i) => ({
  id: `doc.${i}`,
  values: Float32Array.from({ length: DIMENSION }, (_, d) => Math.sin(i * 10 + d) / 3),
  metadata: metadataFor({ tags: [`t${i}`] }),
  ...terms,
  // Its chain, as the add path writes it (the second item's: no speaker, the first's: one, for the record).
  ...(i < 2
    ? { chain: { neighbours: [`doc.${1 - i}`], weights: [i === 0 ? 0.15 : 0.45], unlent: i === 0 ? [7] : [] } }
    : {}),
}));
const plain = (entries: JournalEntry[]) =>
  entries.map((entry) =>
    entry.op === 'delete'
      ? entry
      : { op: entry.op, items: entry.items.map((item) => ({ ...item, values: [...item.values] })) },
  );
const journalFile = () => join(mkdtempSync(join(tmpdir(), 'memgate-journal-')), 'gen-0.log');

describe('vector index journal', () => {
  it('gives back each batch as written: vectors, metadata, terms, neighbours’ terms to the bit and chains', async () => {
    const path = journalFile();
    const batches: JournalEntry[] = [
      { op: 'upsert', items },
      { op: 'delete', ids: ['doc.1'] },
      { op: 'upsert', items: [{ id: 'bare', values: new Float32Array(DIMENSION), metadata: metadataFor() }] },
    ];
    for (const batch of batches) appendFileSync(path, encodeEntry(batch, DIMENSION));
    expect(plain(await entriesOf(path, DIMENSION))).toEqual(plain(batches));
    expect(items[1]?.contextTerms?.values.some((value) => !Number.isInteger(value))).toBe(true);
    // The terms travel as binary, not as JSON numbers in the header (parsing those was most of a replay's time).
    const data = readFileSync(path);
    const header = JSON.parse(data.toString('utf8', 8, 8 + data.readUInt32LE(0))) as { items: { terms: unknown }[] };
    expect(header.items[0]?.terms).toBe(items[0]?.terms?.indices.length);
  });

  it('encodes into a reused buffer the same bytes as into fresh memory, larger and smaller records in turn', async () => {
    const path = journalFile();
    const into = new RecordBuffer();
    const batches: JournalEntry[] = [
      { op: 'upsert', items: items.slice(0, 1) },
      { op: 'upsert', items },
      { op: 'delete', ids: ['doc.1'] },
      { op: 'upsert', items: items.slice(1) },
    ];
    for (const batch of batches) {
      const reused = encodeEntry(batch, DIMENSION, into);
      expect(Buffer.compare(reused, encodeEntry(batch, DIMENSION))).toBe(0);
      appendFileSync(path, reused);
    }
    expect(plain(await entriesOf(path, DIMENSION))).toEqual(plain(batches));
  });

  it('drops a torn last record (a crash mid-write) and keeps the batches before it', async () => {
    const path = journalFile();
    appendFileSync(path, encodeEntry({ op: 'upsert', items: items.slice(0, 1) }, DIMENSION));
    const intact = statSync(path).size;
    const torn = encodeEntry({ op: 'upsert', items: items.slice(1) }, DIMENSION);
    appendFileSync(path, torn.subarray(0, torn.length - 5)); // its terms cut short
    expect(plain(await entriesOf(path, DIMENSION))).toEqual(plain([{ op: 'upsert', items: items.slice(0, 1) }]));
    expect(statSync(path).size).toBe(intact);
  });

  it('reads records of the first version, with the terms in the JSON header', async () => {
    const path = journalFile();
    const header = Buffer.from(
      JSON.stringify({
        op: 'upsert',
        items: items.map(({ id, metadata, terms, contextTerms }) => ({ id, metadata, terms, contextTerms })),
      }),
    );
    const vectors = Buffer.concat(items.map((item) => Buffer.from(item.values.buffer)));
    const lengths = Buffer.alloc(8);
    lengths.writeUInt32LE(header.length, 0);
    lengths.writeUInt32LE(vectors.length, 4);
    writeFileSync(path, Buffer.concat([lengths, header, vectors]));
    appendFileSync(path, encodeEntry({ op: 'delete', ids: ['doc.0'] }, DIMENSION));
    expect(plain(await entriesOf(path, DIMENSION))).toEqual(
      plain([
        { op: 'upsert', items: items.map(({ chain: _, ...item }) => item) }, // no chains then
        { op: 'delete', ids: ['doc.0'] },
      ]),
    );
    expect(readFileSync(path).length).toBeGreaterThan(0);
  });

  it('replays a large journal one record at a time, never holding it whole (~100 MB at 100k chunks)', async () => {
    const path = journalFile();
    const dimension = 512;
    const batch = (b: number): JournalEntry => ({
      op: 'upsert',
      items: Array.from({ length: 1000 }, (_, i) => ({
        id: `c${b}-${i}`,
        values: new Float32Array(dimension).fill(b * 1000 + i),
        metadata: metadataFor(),
      })),
    });
    for (let b = 0; b < 20; b++) appendFileSync(path, encodeEntry(batch(b), dimension));
    expect(statSync(path).size).toBeGreaterThan(40 * 1024 * 1024);
    collectGarbage();
    const before = process.memoryUsage().arrayBuffers;
    let most = 0;
    let replayed = 0;
    for await (const entry of readJournal(path, dimension)) {
      collectGarbage(); // what is still held, not what awaits collection
      most = Math.max(most, process.memoryUsage().arrayBuffers - before);
      if (entry.op === 'upsert') expect(entry.items[999]?.values[3]).toBe(replayed * 1000 + 999);
      replayed++;
    }
    expect(replayed).toBe(20);
    // A record, its entry (~2 MiB each) and the previous ones while their memory is being freed: not the file's 41 MiB.
    expect(most / 2 ** 20).toBeLessThan(16);
  }, 30_000);
});
