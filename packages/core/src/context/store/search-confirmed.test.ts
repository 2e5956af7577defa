import { describe, expect, it } from 'vitest';
import { createMemoryRepository } from '../../../../../test/support/memory-ports.ts';
import type { ContextRepository } from '../ports.ts';
import { chunkIdOf } from './ids.ts';
import { createContextStore } from './index.ts';
import { alice, documentAbout, embedder, ids, search, setup, withoutConfirm } from './test-processes.ts';

// Search shows a hit the index confirmed at its tenant's current generation tag without reading its rows
// (VectorIndex.confirm, search-rows.ts). What a tag must never vouch for: a wiped table's records, an old text.

const mode = { confirms: true, cacheBytes: 0 } as const;

describe('search: confirmations in the index', () => {
  it('shows confirmed hits without a row read, and reads again after a bump', async () => {
    const s = setup(mode);
    const store = s.process();
    await store.add(alice, { source: 'wiki', documents: [{ fileName: 'a.txt', content: documentAbout('puffin', 3) }] });
    const first = await search(store, 'puffin note');
    expect(first).toHaveLength(3);
    s.rowsRead.length = 0;
    expect(await search(s.process(), 'puffin note')).toEqual(first); // another process, same index
    expect(s.rowsRead).toEqual([]);
    await s.memory.repository.bumpGenerations(['user:alice']);
    expect(await search(store, 'puffin note')).toEqual(first);
    expect(s.rowsRead.flat()).toContain(first[0]?.contextId);
  });

  it('an add confirms the chunks it makes visible: the first search after it reads no row; a re-add does not', async () => {
    const s = setup(mode);
    const store = s.process();
    const documents = [{ fileName: 'auk.txt', content: documentAbout('auk', 2) }];
    await store.add(alice, { source: 'wiki', documents });
    s.rowsRead.length = 0;
    const first = await search(store, 'auk note');
    expect(first).toHaveLength(2);
    expect(s.rowsRead).toEqual([]);
    // Equal to what rows say (a process whose index cannot confirm reads them).
    expect(await search(s.process({ wrapIndex: withoutConfirm }), 'auk note')).toEqual(first);
    // An identical re-add writes nothing: nothing was hidden, the confirmations stand.
    await store.add(alice, { source: 'wiki', documents });
    s.rowsRead.length = 0;
    expect(await search(store, 'auk note')).toEqual(first);
    expect(s.rowsRead).toEqual([]);
    // A re-add that changes the document (its tags) claims it (a bump after the tag it read): it confirms nothing, a
    // search proves again.
    await store.add(alice, { source: 'wiki', documents, tags: ['seabird'] });
    s.rowsRead.length = 0;
    expect(await search(store, 'auk note')).toEqual(first);
    expect(s.rowsRead.flat()).toHaveLength(3);
  });

  it('a wiped table: confirmations kept in the index vouch for nothing, also at the same counter', async () => {
    const s = setup(mode);
    const before = s.process();
    await before.add(alice, { source: 'wiki', documents: [{ fileName: 'w.txt', content: documentAbout('gull', 2) }] });
    expect(await search(before, 'gull note')).toHaveLength(2); // confirmed at the tenant's tag
    // DynamoDB Local reset, DATA_DIR kept: no row, no generation row; the index still holds vectors and verdicts.
    const wiped = createMemoryRepository({ now: () => new Date() });
    const after = createContextStore({
      repository: wiped.repository,
      index: s.index,
      embedder,
      clock: { now: () => new Date() },
      visibilityCacheBytes: 0,
    });
    expect(await search(after, 'gull note')).toEqual([]);
    // Even once the new table's generation row reaches the counter the old one had.
    await wiped.repository.ensureGenerations(['user:alice']);
    expect(await search(after, 'gull note')).toEqual([]);
  });

  it('a re-add whose chunking changed a chunk’s text never shows the old text', async () => {
    const s = setup(mode);
    const store = s.process();
    const documents = [{ fileName: 'tern.txt', content: documentAbout('tern', 2) }];
    const { contextIds } = await store.add(alice, { source: 'wiki', documents });
    const chunkId = chunkIdOf(contextIds[0] as string, 1);
    // An older chunking gave chunk 1 another text: its row and its vector's text say so, and a search confirms it.
    const row = s.memory.rows.get(chunkId);
    const item = s.shared.namespaces.get('user:alice')?.get(chunkId);
    if (!row || !item) throw new Error('no chunk');
    const newText = row.text;
    row.text = 'tern note old wording';
    // Written by that older version: its fingerprint is not this version's.
    const documentRow = s.memory.rows.get(contextIds[0] as string);
    if (documentRow) documentRow.fingerprint = 'older chunking';
    await s.index.upsert('user:alice', [{ ...item, text: row.text }]);
    expect((await search(store, 'tern note')).find((hit) => hit.contextId === chunkId)?.contextData).toBe(
      'tern note old wording',
    );
    expect(s.shared.confirmed.get('user:alice')?.has(chunkId)).toBe(true);
    await s.process().add(alice, { source: 'wiki', documents });
    const after = await search(store, 'tern note');
    expect(ids(after)).toContain(chunkId);
    expect(after.find((hit) => hit.contextId === chunkId)?.contextData).toBe(newText);
    expect(after.map((hit) => hit.contextData)).not.toContain('tern note old wording');
  });

  it('a confirmation failing costs nothing but the next row read', async () => {
    const s = setup(mode);
    const logged: string[] = [];
    const store = createContextStore({
      repository: s.memory.repository as ContextRepository,
      index: s.index,
      embedder,
      clock: { now: () => new Date() },
      visibilityCacheBytes: 0,
      log: (_, message) => logged.push(message),
    });
    s.failing.confirm = true;
    await store.add(alice, { source: 'wiki', documents: [{ fileName: 'k.txt', content: documentAbout('kittiwake') }] });
    expect(await search(store, 'kittiwake note')).toHaveLength(1);
    expect(logged).toEqual([
      'context add: confirming the added chunks in the index failed',
      'context search: confirming visible chunks in the index failed',
    ]);
  });
});
