import { describe, expect, it } from 'vitest';
import type { ContextRepository, VectorIndex } from '../ports.ts';
import { alice, documentAbout, ids, search, setup } from './test-processes.ts';

// A search whose tenant held nothing last time reads the generation tags only once a match comes back (tags-read.ts):
// the proxy searches on every request, and a user who stored nothing must not pay a DynamoDB call for it.

/** The process's repository, counting its generation tag reads. */
function countingTags(reads: string[][]) {
  return (repository: ContextRepository): ContextRepository => ({
    ...repository,
    readGenerations: (tenants) => {
      reads.push([...tenants]);
      return repository.readGenerations(tenants);
    },
  });
}

/** The process's index, noting each query as 'index' in `calls`. */
function loggingQueries(calls: string[]) {
  return (index: VectorIndex): VectorIndex => ({
    ...index,
    query: (namespace, query) => {
      calls.push('index');
      return index.query(namespace, query);
    },
  });
}

describe('search: tenants that found nothing', () => {
  it('read no generation tag while nothing matches, then read them again once something does', async () => {
    const s = setup({ confirms: true, cacheBytes: 0 });
    const reads: string[][] = [];
    const quiet = s.process({ wrap: countingTags(reads) });
    expect(await search(quiet, 'heron note')).toEqual([]); // the first: read beside the index query
    reads.length = 0;
    expect(await search(quiet, 'heron note')).toEqual([]);
    expect(await search(quiet, 'anything else')).toEqual([]);
    expect(reads).toEqual([]);
    // Another process adds: the quiet one finds it, reading the tag once a match came back.
    const writer = s.process();
    await writer.add(alice, {
      source: 'wiki',
      documents: [{ fileName: 'heron.txt', content: documentAbout('heron', 2) }],
    });
    const found = await search(quiet, 'heron note');
    expect(found).toHaveLength(2);
    expect(reads).toEqual([['user:alice', 'org:acme', 'org:beta']]); // alice's own tenant and her organizations'
    // And never shows it after the other process's 204.
    await writer.delete(alice, { source: 'heron.txt' });
    expect(await search(quiet, 'heron note')).toEqual([]);
  });

  it('a tenant that holds something has its tags read beside the index query, not after it', async () => {
    const s = setup({ confirms: true, cacheBytes: 0 });
    const calls: string[] = [];
    const store = s.process({
      wrap: (repository) => ({
        ...repository,
        readGenerations: (tenants) => {
          calls.push('tags');
          return repository.readGenerations(tenants);
        },
      }),
      wrapIndex: loggingQueries(calls),
    });
    await store.add(alice, { source: 'wiki', documents: [{ fileName: 'kite.txt', content: documentAbout('kite') }] });
    for (const _ of [1, 2]) {
      calls.length = 0;
      expect(ids(await search(store, 'kite note'))).toHaveLength(1);
      // Her organizations found nothing and are quiet, her own tenant is not: one read, first, for all three.
      expect(calls).toEqual(['tags', 'index', 'index', 'index']);
    }
  });
});

describe('search: the tag read beside the index query', () => {
  it('is on its way before the index query takes the thread', async () => {
    const s = setup({ confirms: true, cacheBytes: 0 });
    const calls: string[] = [];
    const store = s.process({
      wrap: (repository) => ({
        ...repository,
        // As the AWS SDK's send does: the request reaches the socket only after a chain of promise jobs and a
        // process.nextTick (Node's HTTP client gives a request its socket in one).
        readGenerations: async (tenants) => {
          for (let i = 0; i < 30; i++) await null;
          await new Promise((sent) => process.nextTick(sent));
          calls.push('tags sent');
          return repository.readGenerations(tenants);
        },
      }),
      wrapIndex: loggingQueries(calls),
    });
    await store.add(alice, { source: 'wiki', documents: [{ fileName: 'kite.txt', content: documentAbout('kite') }] });
    calls.length = 0;
    expect(ids(await search(store, 'kite note'))).toHaveLength(1);
    // The index query is synchronous work: run before the read is sent, it would delay the round trip by its length.
    expect(calls).toEqual(['tags sent', 'index', 'index', 'index']);
  });
});
