import { createDocumentClient, createDynamoContextRepository, createLexicalEmbedder } from '@memgate/adapters';
import { type ContextRecord, createContextStore, type Principal } from '@memgate/core';
import { describe, expect, it } from 'vitest';
import { addBody } from '../../bench/lib/corpus.ts';
import { createTestTable } from '../support/dynamo.ts';
import { createMemoryIndex } from '../support/memory-ports.ts';

// closing13's walk: under many deletes of one document's chunks at once, a lone-chunk delete gave up on its
// document's list after 8 conflicting tries with a 500 (the chunk already hidden). Each accepted delete must land,
// and the document must list exactly what is left right after, on DynamoDB Local where the conflicts are real.

const erin: Principal = {
  userId: 'erin',
  orgs: [],
  scopes: new Set(['context:read', 'context:write', 'context:delete']),
};

async function setup() {
  const table = await createTestTable('unlist');
  const client = createDocumentClient({ endpoint: table.endpoint });
  const clock = { now: () => new Date() };
  const repository = createDynamoContextRepository({ client, tableName: table.tableName, clock });
  const store = createContextStore({
    repository,
    index: createMemoryIndex().index,
    embedder: createLexicalEmbedder(),
    clock,
  });
  return { store };
}

describe('deleting many chunks of one document at once (DynamoDB Local)', () => {
  it('acknowledges every delete and leaves the document listing exactly the chunks left, none of the deleted shown', async () => {
    const { store } = await setup();
    const [added] = (
      await store.add(erin, addBody({ firstSeed: 3, documents: 1, chunksPerDocument: 60, source: 'log' }))
    ).documents;
    const documentId = added?.contextId as string;
    const records = async () => (await store.view(erin, { limit: 1000 })).items as ContextRecord[];
    const children = (await records()).find((record) => record._id === documentId)?.children_context_nodes ?? [];
    expect(children).toHaveLength(60);
    const deleted = children.filter((_, i) => i % 5 !== 0); // 48 of them, all at once
    const results = await Promise.allSettled(deleted.map((id) => store.delete(erin, { source: id, by_id: true })));
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    const left = children.filter((_, i) => i % 5 === 0);
    const now = await records();
    expect(now.find((record) => record._id === documentId)?.children_context_nodes).toEqual(left);
    expect((await store.viewDocs(erin, { limit: 10 })).items.map((doc) => doc.chunks)).toEqual([12]);
    // Nothing half-visible: the chunks shown are the ones listed, and no deleted one is found.
    expect(
      now
        .filter((record) => record._id !== documentId)
        .map((record) => record._id)
        .sort(),
    ).toEqual([...left].sort());
    const hits = await store.search(erin, {
      query: 'log',
      similarity_threshold: 1,
      minimum_similarity_threshold: 0,
      top_k: 100,
    });
    expect(hits.filter((hit) => deleted.includes(hit.contextId))).toEqual([]);
  });
});
