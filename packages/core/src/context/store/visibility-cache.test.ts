import { describe, expect, it } from 'vitest';
import { createFailingIndex } from '../../../../../test/support/context-fakes.ts';
import { createMemoryIndex, createMemoryRepository } from '../../../../../test/support/memory-ports.ts';
import type { Principal, TenantKey } from '../../auth/index.ts';
import { runCleanup } from '../../cleanup/index.ts';
import type { ContextRepository, Embedder, VectorIndex } from '../ports.ts';
import type { SearchInput } from '../service.ts';
import { chunkIdOf } from './ids.ts';
import { createContextStore } from './index.ts';
import { createVisibilityCache } from './visibility-cache.ts';

// The visibility cache (issue 17) across processes: each store below stands for one process (a Lambda container,
// the local server, the cleanup CLI) with its own cache, over the same rows and vectors. Whatever one process hides
// and acknowledges, a search of another process started afterwards never returns. A delete removes vectors before it
// answers, so the tests that delete make the vector store fail to (`failing.delete`): the hits still come back from
// the index, as they do when a vector store fails midway or lags (Pinecone's deletes are eventually consistent), and
// only the rows, or the cache, decide.

/** Bag of words hashed into 64 dimensions: texts sharing words are similar. */
const embedder: Embedder = {
  id: 'fake-hashed-words:64',
  dimension: 64,
  async embed(texts) {
    return texts.map((text) => {
      const vector = new Float32Array(64);
      for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
        let hash = 0;
        for (const char of word) hash = (hash * 31 + char.charCodeAt(0)) % 64;
        vector[hash] = (vector[hash] ?? 0) + 1;
      }
      const norm = Math.hypot(...vector) || 1;
      return vector.map((value) => value / norm);
    });
  },
};

const alice: Principal = {
  userId: 'alice',
  orgs: ['acme', 'beta'],
  scopes: new Set(['context:read', 'context:write', 'context:delete']),
};
const bob: Principal = { ...alice, userId: 'bob', orgs: [] };

/** A document of `paragraphs` chunks (each paragraph ~600 characters, so each its own chunk), all about `topic`. */
const documentAbout = (topic: string, paragraphs = 1) =>
  Array.from({ length: paragraphs }, (_, p) =>
    Array.from({ length: 40 }, (_, i) => `${topic} note ${p} line ${i}.`).join(' '),
  ).join('\n\n');

const band = { similarity_threshold: 1, minimum_similarity_threshold: 0, top_k: 20 } as const;

/** The rows and vectors every process shares, and a way to start a process (a store with its own cache). */
function setup() {
  const clock = { now: () => new Date() };
  const memory = createMemoryRepository(clock);
  const { index, failing } = createFailingIndex(createMemoryIndex().index);
  const rowsRead: string[][] = [];
  /** One process: its own cache (or none), and `repository` wrapped as the test needs. */
  const process = (
    options: {
      cacheBytes?: number;
      wrap?: (r: ContextRepository) => ContextRepository;
      wrapIndex?: (i: VectorIndex) => VectorIndex;
    } = {},
  ) => {
    const counting: ContextRepository = {
      ...memory.repository,
      getForSearch: (ids) => {
        rowsRead.push([...ids]);
        return memory.repository.getForSearch(ids);
      },
      getForSearchWithGenerations: (ids, tenants) => {
        if (ids.length > 0) rowsRead.push([...ids]);
        return memory.repository.getForSearchWithGenerations(ids, tenants);
      },
    };
    const repository = options.wrap ? options.wrap(counting) : counting;
    return createContextStore({
      repository,
      index: options.wrapIndex ? options.wrapIndex(index) : index,
      embedder,
      clock,
      ...(options.cacheBytes === undefined ? {} : { visibilityCacheBytes: options.cacheBytes }),
    });
  };
  const cleanup = () =>
    runCleanup({
      repository: memory.repository,
      index,
      embedder,
      clock: { now: () => new Date(Date.now() + 3_600_000) },
      deadline: new Date(Date.now() + 7_200_000),
    });
  return { memory, index, failing, rowsRead, process, cleanup };
}

const ids = (hits: { contextId: string }[]) => hits.map((hit) => hit.contextId).sort();
const search = (
  store: ReturnType<ReturnType<typeof setup>['process']>,
  query: string,
  input: Partial<SearchInput> = {},
) => store.search(alice, { query, ...band, ...input });

describe('visibility cache: a warm search', () => {
  it('reads no row and returns exactly what a row read returns (text, source, file name, document, score)', async () => {
    const s = setup();
    const cached = s.process();
    const uncached = s.process({ cacheBytes: 0 });
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

describe('visibility cache: what another process hides and acknowledges is never returned', () => {
  it('a delete by document (204)', async () => {
    const s = setup();
    const [searcher, deleter] = [s.process(), s.process()];
    await deleter.add(alice, {
      source: 'wiki',
      documents: [{ fileName: 'gone.txt', content: documentAbout('walrus', 2) }],
    });
    await deleter.add(alice, {
      source: 'wiki',
      documents: [{ fileName: 'kept.txt', content: documentAbout('walrus tusk') }],
    });
    expect(await search(searcher, 'walrus note')).toHaveLength(3);
    s.failing.delete = true;
    await deleter.delete(alice, { source: 'gone.txt' });
    const after = await search(searcher, 'walrus note');
    expect(after.map((hit) => hit.fileName)).toEqual(['kept.txt']);
  });

  it('a delete by id of one chunk (204): the document’s other chunks stay', async () => {
    const s = setup();
    const [searcher, deleter] = [s.process(), s.process()];
    const added = await deleter.add(alice, {
      source: 'wiki',
      documents: [{ fileName: 'seals.txt', content: documentAbout('seal colony', 3) }],
    });
    const before = ids(await search(searcher, 'seal colony note'));
    expect(before).toHaveLength(3);
    const chunk = chunkIdOf(added.contextIds[0] as string, 1);
    expect(before).toContain(chunk);
    s.failing.delete = true;
    await deleter.delete(alice, { source: chunk, by_id: true });
    expect(ids(await search(searcher, 'seal colony note'))).toEqual(before.filter((id) => id !== chunk));
  });

  it('a re-add: while another process replaces a document, its old version is not shown (as a row read says)', async () => {
    const s = setup();
    const searcher = s.process();
    const seen: string[][] = [];
    // The re-adding process: just before its document becomes `indexed` again, the searcher searches.
    const readder = s.process({
      wrap: (repository) => ({
        ...repository,
        transition: async (list, from, to) => {
          if (to === 'indexed') seen.push(ids(await search(searcher, 'narwhal note')));
          return repository.transition(list, from, to);
        },
      }),
    });
    const documents = [{ fileName: 'narwhal.txt', content: documentAbout('narwhal', 2) }];
    await searcher.add(alice, { source: 'wiki', documents });
    expect(await search(searcher, 'narwhal note')).toHaveLength(2);
    await readder.add(alice, { source: 'wiki', documents });
    expect(seen).toEqual([[]]);
    expect(await search(searcher, 'narwhal note')).toHaveLength(2);
  });

  it('a re-add that fails after hiding the chunks its new version no longer has: they are not shown', async () => {
    const s = setup();
    const searcher = s.process();
    const documents = [{ fileName: 'otter.txt', content: documentAbout('otter', 2) }];
    const { contextIds } = await searcher.add(alice, { source: 'wiki', documents });
    const documentId = contextIds[0] as string;
    // An older chunking gave this document a third chunk, still listed, with its row and vector.
    const old = structuredClone(s.memory.rows.get(chunkIdOf(documentId, 1)));
    if (!old) throw new Error('no chunk row');
    const extraId = chunkIdOf(documentId, 2);
    const extra = { ...old, _id: extraId, corresponding_vector_id: extraId, text: 'otter note old' };
    s.memory.rows.set(extra._id, extra);
    s.memory.rows.get(documentId)?.children_context_nodes.push(extra._id);
    const [vector] = await embedder.embed([extra.text], 'document');
    await s.index.upsert('user:alice', [
      { id: extra._id, values: vector as Float32Array, metadata: { ...metadataOf(documentId), fileName: 'otter.txt' } },
    ]);
    expect(ids(await search(searcher, 'otter note old'))).toContain(extra._id);
    // Another process re-adds it and fails on claiming the document, after hiding the extra chunk.
    const failing = s.process({
      wrap: (repository) => ({
        ...repository,
        putMany: async (records) => {
          if (records.some((record) => record.kind === 'document')) throw new Error('injected claim failure');
          return repository.putMany(records);
        },
      }),
    });
    await expect(failing.add(alice, { source: 'wiki', documents })).rejects.toThrow('injected claim failure');
    expect(s.memory.rows.get(extra._id)?.status).toBe('deleting');
    expect(ids(await search(searcher, 'otter note old'))).not.toContain(extra._id);
  });

  it('a delete whose bump failed after hiding answers an error; retried, its 204 holds for every cache', async () => {
    const s = setup();
    const searcher = s.process();
    let bumpFails = true;
    const deleter = s.process({
      wrap: (repository) => ({
        ...repository,
        bumpGenerations: async (tenants) => {
          if (bumpFails) throw new Error('injected bump failure');
          return repository.bumpGenerations(tenants);
        },
      }),
    });
    await searcher.add(alice, {
      source: 'wiki',
      documents: [{ fileName: 'puffin.txt', content: documentAbout('puffin') }],
    });
    expect(await search(searcher, 'puffin note')).toHaveLength(1);
    s.failing.delete = true;
    await expect(deleter.delete(alice, { source: 'puffin.txt' })).rejects.toThrow('injected bump failure');
    bumpFails = false;
    // The document is already `deleting`: the retry moves nothing, and must still bump before its 204.
    await deleter.delete(alice, { source: 'puffin.txt' });
    expect(await search(searcher, 'puffin note')).toEqual([]);
  });

  it('a delete whose bump failed after hiding: the cleanup finishing it bumps, and no cache shows it after', async () => {
    const s = setup();
    const searcher = s.process();
    const deleter = s.process({
      wrap: (repository) => ({
        ...repository,
        bumpGenerations: async () => {
          throw new Error('injected bump failure');
        },
      }),
    });
    const { contextIds } = await searcher.add(alice, {
      source: 'wiki',
      documents: [{ fileName: 'tern.txt', content: documentAbout('tern') }],
    });
    expect(await search(searcher, 'tern note')).toHaveLength(1);
    s.failing.delete = true;
    await expect(deleter.delete(alice, { source: 'tern.txt' })).rejects.toThrow('injected bump failure');
    // The cleanup bumps, then fails to remove the vectors too: the hit still comes back from the index.
    await s.cleanup();
    expect(s.memory.rows.get(contextIds[0] as string)?.status).toBe('deleting');
    expect(await search(searcher, 'tern note')).toEqual([]);
  });

  it.each([
    ['answers', false],
    ['is written but its answer is lost (a timeout after DynamoDB applied it)', true],
  ])(
    'a removal that hides a re-added document again (its vectors could not be given back) bumps, when the move to pending %s',
    async (_, answerLost) => {
      const s = setup();
      const searcher = s.process();
      const documents = [{ fileName: 'skua.txt', content: documentAbout('skua', 2) }];
      const readder = s.process();
      // The deleting process's vector store acknowledges the deletion but still answers with the vectors (Pinecone's
      // deletes are eventually consistent). Meanwhile the document is added again, and searched (its new version
      // cached); then giving its vectors back fails, and the removal hides it again as `pending`.
      const deleter = s.process({
        wrap: (repository) => ({
          ...repository,
          transition: async (ids, from, to) => {
            const moved = await repository.transition(ids, from, to);
            if (answerLost && to === 'pending' && s.failing.upsert) throw new Error('socket hang up');
            return moved;
          },
        }),
        wrapIndex: (index) => ({
          ...index,
          delete: async () => {
            await readder.add(alice, { source: 'wiki', documents });
            expect(await search(searcher, 'skua note')).toHaveLength(2);
            s.failing.upsert = true;
          },
        }),
      });
      await searcher.add(alice, { source: 'wiki', documents });
      expect(await search(searcher, 'skua note')).toHaveLength(2);
      await deleter.delete(alice, { source: 'skua.txt' });
      const documentId = [...s.memory.rows.values()].find((row) => row.kind === 'document')?._id as string;
      expect(s.memory.rows.get(documentId)?.status).toBe('pending');
      expect(await search(searcher, 'skua note')).toEqual([]);
    },
  );

  it('a row read in the same batch as a generation bumped after it is never cached at that generation', async () => {
    const s = setup();
    const deleter = s.process();
    let hideMidBatch = true;
    // The batch reads the rows first, then (after another process hid the document and bumped) the generation.
    const searcher = s.process({
      wrap: (repository) => ({
        ...repository,
        getForSearchWithGenerations: async (ids, tenants) => {
          if (!hideMidBatch || ids.length === 0) return repository.getForSearchWithGenerations(ids, tenants);
          hideMidBatch = false;
          const records = await repository.getForSearch(ids);
          await deleter.delete(alice, { source: 'petrel.txt' });
          return { records, generations: await repository.readGenerations(tenants) };
        },
      }),
    });
    await deleter.add(alice, {
      source: 'wiki',
      documents: [{ fileName: 'petrel.txt', content: documentAbout('petrel', 2) }],
    });
    s.failing.delete = true;
    // Started before the delete answered: it may show what its rows said.
    expect(await search(searcher, 'petrel note')).toHaveLength(2);
    expect(hideMidBatch).toBe(false);
    expect(await search(searcher, 'petrel note')).toEqual([]);
  });

  it('across organizations: a delete in one hides only its records, the others are still found', async () => {
    const s = setup();
    const [searcher, deleter] = [s.process(), s.process()];
    for (const [organization_id, fileName] of [
      ['acme', 'acme.txt'],
      ['beta', 'beta.txt'],
      [undefined, 'own.txt'],
    ] as const) {
      await deleter.add(alice, {
        source: 'wiki',
        ...(organization_id ? { organization_id } : {}),
        documents: [{ fileName, content: documentAbout(`gannet ${fileName}`) }],
      });
    }
    const names = async () => (await search(searcher, 'gannet note')).map((hit) => hit.fileName).sort();
    const kept = (await search(searcher, 'gannet note')).filter((hit) => hit.fileName !== 'beta.txt');
    expect(await names()).toEqual(['acme.txt', 'beta.txt', 'own.txt']);
    s.failing.delete = true;
    await deleter.delete(alice, { source: 'beta.txt', organization_id: 'beta' });
    expect(await names()).toEqual(['acme.txt', 'own.txt']);
    // Only beta's generation moved: acme's and alice's own chunks come from the cache, no row of theirs is read.
    s.rowsRead.length = 0;
    expect(await names()).toEqual(['acme.txt', 'own.txt']);
    expect(s.rowsRead.flat()).not.toContain(kept[0]?.contextId);
    expect(s.rowsRead.flat()).not.toContain(kept[1]?.contextId);
    expect(kept).toHaveLength(2);
  });
});

describe('visibility cache: tenants', () => {
  it('never serves one tenant another tenant’s cached chunk, even for a hit with the same id', async () => {
    const s = setup();
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
      },
    ]);
    expect(await store.search(bob, { query: 'albatross note', ...band })).toEqual([]);
  });

  it('keys entries by tenant and generation', () => {
    const cache = createVisibilityCache({ maxBytes: 1 << 20 });
    const chunk = { contextId: 'doc_a.0', text: 't', documentId: 'doc_a', fileName: 'f', source: 's' };
    const [alices, bobs] = ['user:alice', 'user:bob'] as const satisfies TenantKey[];
    cache?.set(alices, chunk, 3);
    expect(cache?.get(alices, 'doc_a.0', 3)).toEqual(chunk);
    expect(cache?.get(bobs, 'doc_a.0', 3)).toBeUndefined();
    expect(cache?.get(alices, 'doc_a.0', 4)).toBeUndefined();
    // Once seen at another generation, the entry is gone.
    expect(cache?.get(alices, 'doc_a.0', 3)).toBeUndefined();
    expect(createVisibilityCache({ maxBytes: 0 })).toBeUndefined();
  });
});

function metadataOf(documentId: string) {
  return {
    documentId,
    userId: 'alice',
    scopes: ['internal'],
    source: 'wiki',
    fileName: 'secret.txt',
    docType: 'text/plain',
    contextType: 'resource',
    tags: [],
  };
}
