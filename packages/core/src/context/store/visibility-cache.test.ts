import { describe, expect, it } from 'vitest';
import type { TenantKey } from '../../auth/index.ts';
import { chunkIdOf } from './ids.ts';
import {
  alice,
  band,
  bob,
  documentAbout,
  embedder,
  ids,
  metadataOf,
  search,
  setup,
  VOUCHING_MODES,
  withoutConfirm,
} from './test-processes.ts';
import { createVisibilityCache } from './visibility-cache.ts';

// The visibility cache (issue 17): what a warm search serves, its bound, and its keys. What one process hides and
// another's cache must then never show: visibility-cache-hiding.test.ts.

describe.each(VOUCHING_MODES)('%s: a warm search', (_, mode) => {
  it('reads no row and returns exactly what a row read returns (text, source, file name, document, score)', async () => {
    const s = setup(mode);
    const cached = s.process();
    const uncached = s.process({ cacheBytes: 0, wrapIndex: withoutConfirm }); // every hit proved by a row read
    await cached.add(alice, {
      source: 'wiki',
      documents: [
        { fileName: 'harbour.txt', content: documentAbout('harbour mooring', 3) },
        { fileName: 'orchard.txt', content: documentAbout('orchard apples', 2) },
      ],
    });
    const cold = await search(cached, 'harbour mooring note');
    expect(cold.length).toBe(5);
    s.rowsRead.length = 0;
    const warm = await search(cached, 'harbour mooring note');
    expect(s.rowsRead).toEqual([]);
    expect(warm).toEqual(cold);
    expect(warm).toEqual(await search(uncached, 'harbour mooring note'));
    expect(warm[0]).toMatchObject({
      source: 'wiki',
      fileName: 'harbour.txt',
      contextData: expect.stringContaining('harbour'),
    });
  });
});

describe('visibility cache: its bound', () => {
  it('stays bounded by its bytes: what no longer fits is read again, with the same results', async () => {
    const s = setup();
    const small = s.process({ cacheBytes: 4_000 }); // about two chunks of ~600 characters
    await small.add(alice, { source: 'wiki', documents: [{ fileName: 'a.txt', content: documentAbout('kelp', 4) }] });
    const first = await search(small, 'kelp note');
    s.rowsRead.length = 0;
    expect(await search(small, 'kelp note')).toEqual(first);
    expect(s.rowsRead.flat().length).toBeGreaterThan(0);
  });
});

describe.each(VOUCHING_MODES)('%s: tenants', (_, mode) => {
  it('never serves one tenant another tenant’s cached or confirmed chunk, even for a hit with the same id', async () => {
    const s = setup(mode);
    const store = s.process();
    const { contextIds } = await store.add(alice, {
      source: 'wiki',
      documents: [{ fileName: 'secret.txt', content: documentAbout('albatross') }],
    });
    const chunkId = chunkIdOf(contextIds[0] as string, 0);
    expect(ids(await store.search(alice, { query: 'albatross note', ...band }))).toEqual([chunkId]);
    // A stray vector with the same id in bob's namespace (as if an index held one): bob's search hits it.
    const [vector] = await embedder.embed(['albatross note'], 'document');
    await s.index.upsert('user:bob', [
      {
        id: chunkId,
        values: vector as Float32Array,
        metadata: { ...metadataOf(contextIds[0] as string), userId: 'bob' },
        text: s.memory.rows.get(chunkId)?.text as string,
      },
    ]);
    // Even confirmed in bob's namespace at alice's tag (tags are per tenant, each with its own random epoch).
    const aliceTag = (await s.memory.repository.readGenerations(['user:alice'])).get('user:alice') as string;
    await s.index.confirm?.('user:bob', [
      { id: chunkId, text: s.memory.rows.get(chunkId)?.text as string, tag: aliceTag },
    ]);
    expect(await store.search(bob, { query: 'albatross note', ...band })).toEqual([]);
    expect(ids(await store.search(alice, { query: 'albatross note', ...band }))).toEqual([chunkId]);
  });
});

describe('visibility cache: keys', () => {
  it('keys entries by tenant and generation', () => {
    const cache = createVisibilityCache({ maxBytes: 1 << 20 });
    const chunk = { contextId: 'doc_a.0', text: 't', documentId: 'doc_a', fileName: 'f', source: 's' };
    const [alices, bobs] = ['user:alice', 'user:bob'] as const satisfies TenantKey[];
    cache?.set(alices, chunk, 'e:3');
    expect(cache?.get(alices, 'doc_a.0', 'e:3')).toEqual(chunk);
    expect(cache?.get(bobs, 'doc_a.0', 'e:3')).toBeUndefined();
    expect(cache?.get(alices, 'doc_a.0', 'e:4')).toBeUndefined();
    // Once seen at another generation, the entry is gone.
    expect(cache?.get(alices, 'doc_a.0', 'e:3')).toBeUndefined();
    expect(createVisibilityCache({ maxBytes: 0 })).toBeUndefined();
  });
});
