import { chunkTerms, NO_NEIGHBOURS, queryTermFrequencies, type SparseValues, type VectorItem } from '@memgate/core';
import { afterEach, describe, expect, it } from 'vitest';
import { axisVector, metadataFor } from '../../../../test/conformance/vector-index.ts';
import { FrequencyTable } from './frequency-table.ts';
import type { LocalVectorIndex } from './index.ts';
import { EPOCH_BITS, TermPostings } from './term-postings.ts';
import { closeOpenedIndexes, freshDir as freshIndexDir, openIndex } from './test-indexes.ts';

afterEach(closeOpenedIndexes);

const item = (id: string, text: string, axis = 0): VectorItem => ({
  id,
  values: axisVector(16, axis),
  metadata: metadataFor(),
  ...chunkTerms([text], NO_NEIGHBOURS)[0],
});
const lexicalQuery = (text: string) => ({
  vector: axisVector(16, 9),
  terms: queryTermFrequencies(text),
  lexicalWeight: 1,
  topK: 10,
});
const scores = async (index: LocalVectorIndex, namespace: 'user:u1', text: string) =>
  Object.fromEntries((await index.query(namespace, lexicalQuery(text))).map((match) => [match.id, match.score]));

describe('local vector index: lexical half', () => {
  it('keeps terms across a crash (journal) and a restart (snapshot), and never revives deleted ones', async () => {
    const dir = freshDir();
    const first = await openIndex(dir);
    await first.upsert('user:u1', [item('kept', 'pottery class'), item('deleted', 'pottery wheel')]);
    await first.delete('user:u1', ['deleted']);
    const afterCrash = await scores(await openIndex(dir), 'user:u1', 'pottery');
    expect(Object.keys(afterCrash)).toEqual(['kept']);
    expect(afterCrash.kept).toBeGreaterThan(0);

    const snapshotDir = freshDir();
    const snapshotted = await openIndex(snapshotDir, 1);
    await snapshotted.upsert('user:u1', [item('kept', 'pottery class'), item('deleted', 'pottery wheel')]);
    await snapshotted.delete('user:u1', ['deleted']);
    const reopened = await openIndex(snapshotDir);
    expect(await scores(reopened, 'user:u1', 'pottery')).toEqual({ kept: afterCrash.kept });
  });

  it('weighs a term by its rarity among the tenant’s own chunks', async () => {
    const index = await openIndex(freshDir());
    await index.upsert('user:u1', [
      item('rare', 'melanie adoption'),
      item('common', 'melanie painting'),
      ...Array.from({ length: 6 }, (_, i) => item(`filler-${i}`, `melanie note ${i}`)),
    ]);
    const found = await scores(index, 'user:u1', 'Melanie adoption painting');
    // Both match two of three terms with "melanie"; "adoption" and "painting" are equally rare: a tie.
    expect(found.rare).toBeCloseTo(found.common as number, 6);
    await index.upsert('user:u1', [item('filler-0', 'painting class'), item('filler-1', 'painting again')]);
    const after = await scores(index, 'user:u1', 'Melanie adoption painting');
    expect(after.rare).toBeGreaterThan(after.common as number); // "painting" is now common here
  });

  it('counts neighbours’ terms only for a chunk that matches by its own', async () => {
    const index = await openIndex(freshDir());
    const texts = ['Coffee beans are in the top cupboard', 'The shed key hangs by the door', 'Tea is in the drawer'];
    const [coffee, shed, tea] = chunkTerms(texts, { span: 1, before: 0.3, after: 0.3 });
    await index.upsert('user:u1', [
      { ...item('coffee', ''), ...coffee },
      { ...item('shed', ''), ...shed },
      { ...item('tea', ''), ...tea },
      item('lone-shed', texts[1] as string), // the same text with no neighbours
    ]);
    const beans = await scores(index, 'user:u1', 'coffee beans');
    expect(beans.coffee).toBeGreaterThan(0);
    expect(beans.shed).toBe(0); // its neighbour's words alone do not make it match
    const both = await scores(index, 'user:u1', 'shed coffee');
    expect(both.shed).toBeGreaterThan(both['lone-shed'] as number); // they do strengthen its own match
  });

  it('ranks a chunk holding the question’s words itself above one that borrows most of them', async () => {
    const index = await openIndex(freshDir());
    const texts = ['Which singer did you see at the jazz festival in Lisbon?', 'It was Matt.'];
    const [asked, answer] = chunkTerms(texts, { span: 1, before: 0.45, after: 0.15 });
    await index.upsert('user:u1', [
      { ...item('asked', ''), ...asked },
      { ...item('answer', ''), ...answer },
      item('notes', 'Matt, our singer, played jazz in Lisbon'),
      item('filler', 'The weather in Porto was mild all week'),
    ]);
    // "answer" holds one of the five words itself and borrows the rest from the turn before; "notes" holds four.
    const found = await scores(index, 'user:u1', 'Matt singer jazz festival Lisbon');
    expect(found.answer).toBeGreaterThan(0);
    expect(found.notes).toBeGreaterThan(found.answer as number);
  });

  it('scores a full match of every query term higher than a partial one, all within [0, 1]', async () => {
    const index = await openIndex(freshDir());
    await index.upsert('user:u1', [item('both', 'violin recital'), item('one', 'violin lessons'), item('none', 'x')]);
    const found = await scores(index, 'user:u1', 'violin recital');
    expect(found.both).toBeGreaterThan(found.one as number);
    expect(found.none).toBe(0);
    for (const score of Object.values(found)) expect(score).toBeLessThanOrEqual(1);
  });

  it('indexes terms given out of order (a writer other than chunkTerms) as it does sorted ones', async () => {
    const index = await openIndex(freshDir());
    const [sorted] = chunkTerms(['pottery class on sunday', 'violin recital'], { span: 1, before: 0.4, after: 0.2 });
    const reversed = (sparse: { indices: number[]; values: number[] }) => ({
      indices: [...sparse.indices].reverse(),
      values: [...sparse.values].reverse(),
    });
    const { terms, contextTerms } = sorted as { terms: SparseValues; contextTerms: SparseValues };
    await index.upsert('user:u1', [
      { ...item('sorted', ''), terms, contextTerms },
      { ...item('unordered', ''), terms: reversed(terms), contextTerms: reversed(contextTerms) },
      item('other', 'sunday market'),
    ]);
    const found = await scores(index, 'user:u1', 'pottery violin sunday');
    expect(found.sorted).toBeGreaterThan(0);
    expect(found.unordered).toBe(found.sorted);
  });
  it('never revives a chunk’s old terms, however often its id is replaced', async () => {
    const dir = freshDir();
    const index = await openIndex(dir);
    await index.upsert('user:u1', [item('other', 'pottery garden'), item('replaced', 'violin recital')]);
    // Each replacement kills the slot's postings where they lie; 300 of them take its 8-bit epoch round past 0.
    for (let i = 0; i < 300; i++) await index.upsert('user:u1', [item('replaced', `pottery lesson${i % 3}`)]);
    expect(await scores(index, 'user:u1', 'violin recital')).toEqual({ other: 0, replaced: 0 });
    const control = await openIndex(freshDir());
    await control.upsert('user:u1', [item('other', 'pottery garden'), item('replaced', 'pottery lesson2')]);
    expect(await scores(index, 'user:u1', 'pottery lesson2 violin')).toEqual(
      await scores(control, 'user:u1', 'pottery lesson2 violin'),
    );
  });

  it('scores exactly when a tenant holds more distinct frequencies than the table has codes', async () => {
    // 70,000 distinct values fill the table's 65,536 codes; then the same chunks as a fresh tenant's.
    const filler: VectorItem = {
      id: 'filler',
      values: axisVector(16, 1),
      metadata: metadataFor(),
      terms: {
        indices: Array.from({ length: 70_000 }, (_, i) => i + 1),
        values: Array.from({ length: 70_000 }, (_, i) => 1 + i / 70_000),
      },
    };
    const chunks = [
      { ...item('a', ''), terms: { indices: [9_000_001, 9_000_002], values: [2.5, 0.3] } },
      {
        ...item('b', ''),
        terms: { indices: [9_000_001], values: [1.25] },
        contextTerms: { indices: [9_000_002], values: [0.77] },
      },
    ];
    const query = { indices: [9_000_001, 9_000_002], values: [1, 1] };
    const answer = async (index: LocalVectorIndex) =>
      index.query('user:u1', { vector: axisVector(16, 9), terms: query, lexicalWeight: 1, topK: 5 });
    const dir = freshDir();
    const full = await openIndex(dir);
    await full.upsert('user:u1', [filler]);
    await full.delete('user:u1', ['filler']);
    await full.upsert('user:u1', chunks);
    const control = await openIndex(freshDir());
    await control.upsert('user:u1', chunks);
    const expected = await answer(control);
    expect(expected.map((match) => match.id).sort()).toEqual(['a', 'b']);
    expect(await answer(full)).toEqual(expected);
    await full.close();
    expect(await answer(await openIndex(dir))).toEqual(expected); // and from its snapshot
  });
});

describe('local vector index: loading postings', () => {
  it('makes a list read from a snapshot out of the slots read, in place (a copy was ~36 MB of garbage at 100k chunks)', () => {
    const table = new FrequencyTable();
    const code = table.codeOf(2);
    const slots = Int32Array.of(3, 7, 11);
    const list = TermPostings.of(slots, Uint16Array.of(code, code, code), table, undefined);
    expect(list.entries.buffer).toBe(slots.buffer);
    expect(Array.from(list.entries, (entry) => entry >>> EPOCH_BITS)).toEqual([3, 7, 11]);
    expect([list.live, list.frequencyAt(2, table)]).toEqual([3, 2]);
  });
});

const freshDir = () => freshIndexDir('memgate-lexical-');
