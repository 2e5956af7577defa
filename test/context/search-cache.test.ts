import { createDocumentClient, createDynamoContextRepository, createLexicalEmbedder } from '@memgate/adapters';
import { type ContextRepository, createContextStore, type Principal, runCleanup } from '@memgate/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createContextHarness } from '../support/context-app.ts';
import { createFailingIndex } from '../support/context-fakes.ts';
import { createMemoryIndex } from '../support/memory-ports.ts';
import { tokenFor } from '../support/tokens.ts';

// Issue 17's visibility cache over DynamoDB Local: the HTTP app (one process) adds, deletes and re-adds; another
// context store over its own DynamoDB client (another process: a Lambda container, the local server) searches with
// its cache warm. Whatever the first acknowledged hiding (204) the second never returns afterwards. The vector store
// is made to fail deletes where a delete runs, so hits keep coming back from the index (as after a vector store
// failure, or while Pinecone's deletes are not yet visible) and only the rows, or the cache, decide.

const band = { similarity_threshold: 1, minimum_similarity_threshold: 0, top_k: 20 };
const paragraphs = (topic: string, count: number) =>
  Array.from({ length: count }, (_, p) =>
    Array.from({ length: 20 }, (_, i) => `The ${topic} ledger entry ${p}.${i} is settled.`).join(' '),
  ).join('\n\n');

let h: Awaited<ReturnType<typeof createContextHarness>>;
let failing: ReturnType<typeof createFailingIndex>['failing'];
let index: ReturnType<typeof createFailingIndex>['index'];
const rowsRead: string[][] = [];

/** Another process over the same table: its own DynamoDB client, repository and cache. */
function otherProcess(wrap: (repository: ContextRepository) => ContextRepository = (r) => r) {
  const clock = { now: () => new Date() };
  const own = createDynamoContextRepository({
    client: createDocumentClient({ endpoint: h.table.endpoint }),
    tableName: h.table.tableName,
    clock,
  });
  const counting: ContextRepository = {
    ...own,
    getForSearch: (ids) => {
      rowsRead.push([...ids]);
      return own.getForSearch(ids);
    },
  };
  return createContextStore({ repository: wrap(counting), index, embedder: createLexicalEmbedder(), clock });
}

const principal = (user: string, orgs: string[] = []): Principal => ({
  userId: user,
  orgs,
  scopes: new Set(['context:read', 'context:write', 'context:delete']),
});

beforeAll(async () => {
  const wrapped = createFailingIndex(createMemoryIndex().index);
  failing = wrapped.failing;
  index = wrapped.index;
  h = await createContextHarness(index);
});

describe('search cache over DynamoDB: another process’s acknowledged hide is never returned', () => {
  it('a warm search reads no row and returns what the rows say; delete, re-add, delete by id, each seen at once', async () => {
    const user = 'cache-cycle';
    const token = await tokenFor(user);
    const searcher = otherProcess();
    const find = async () => await searcher.search(principal(user), { query: 'harbour ledger entry', ...band });
    const added = await h.call('POST', 'add', token, {
      documents: [{ fileName: 'harbour.txt', content: paragraphs('harbour', 3) }],
    });
    expect(added.status).toBe(201);
    const viaHttp = await h.call('POST', 'search', token, { query: 'harbour ledger entry', ...band });
    const cold = await find();
    expect(cold).toHaveLength(3);
    rowsRead.length = 0;
    const warm = await find();
    expect(rowsRead).toEqual([]);
    expect(warm).toEqual(cold);
    expect(warm).toEqual(viaHttp.json.results);

    failing.delete = true;
    try {
      expect((await h.call('POST', 'delete', token, { source: 'harbour.txt' })).status).toBe(204);
      expect(await find()).toEqual([]);

      expect(
        (
          await h.call('POST', 'add', token, {
            documents: [{ fileName: 'harbour.txt', content: paragraphs('harbour', 3) }],
          })
        ).status,
      ).toBe(201);
      expect(await find()).toHaveLength(3);
      await find(); // warm again

      const chunk = cold[1]?.contextId as string;
      expect((await h.call('POST', 'delete', token, { source: chunk, by_id: true })).status).toBe(204);
      const after = (await find()).map((hit) => hit.contextId);
      expect(after).toHaveLength(2);
      expect(after).not.toContain(chunk);
    } finally {
      failing.delete = false;
    }
  });

  it('across organizations: a delete in one organization hides its records from a cache that spans several', async () => {
    const user = 'cache-orgs';
    const token = await tokenFor(user, { orgs: ['north', 'south'] });
    const searcher = otherProcess();
    for (const organization_id of ['north', 'south']) {
      const added = await h.call('POST', 'add', token, {
        organization_id,
        documents: [{ fileName: `${organization_id}.txt`, content: paragraphs(`tide ${organization_id}`, 1) }],
      });
      expect(added.status).toBe(201);
    }
    const names = async () =>
      (await searcher.search(principal(user, ['north', 'south']), { query: 'tide ledger entry', ...band }))
        .map((hit) => hit.fileName)
        .sort();
    expect(await names()).toEqual(['north.txt', 'south.txt']);
    failing.delete = true;
    try {
      const deleted = await h.call('POST', 'delete', token, { source: 'south.txt', organization_id: 'south' });
      expect(deleted.status).toBe(204);
      expect(await names()).toEqual(['north.txt']);
    } finally {
      failing.delete = false;
    }
  });

  it('a delete whose bump fails after hiding answers 500; the cleanup bumps, then no cache shows it', async () => {
    const user = 'cache-bump';
    const me = principal(user);
    const searcher = otherProcess();
    const deleter = otherProcess((repository) => ({
      ...repository,
      bumpGenerations: () => Promise.reject(new Error('injected bump failure')),
    }));
    await searcher.add(me, { source: 'notes', documents: [{ fileName: 'quay.txt', content: paragraphs('quay', 1) }] });
    const find = () => searcher.search(me, { query: 'quay ledger entry', ...band });
    expect(await find()).toHaveLength(1);
    failing.delete = true;
    try {
      await expect(deleter.delete(me, { source: 'quay.txt' })).rejects.toThrow('injected bump failure');
      // The cleanup (a third process) bumps first; its vector deletes fail too, so the index still returns the hit.
      await runCleanup({
        repository: h.repository,
        index,
        embedder: createLexicalEmbedder(),
        clock: { now: () => new Date(Date.now() + 3_600_000) },
        deadline: new Date(Date.now() + 7_200_000),
      });
      expect(await find()).toEqual([]);
    } finally {
      failing.delete = false;
    }
  });
});
