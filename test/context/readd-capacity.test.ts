import { createDocumentClient, createDynamoContextRepository, createLexicalEmbedder } from '@memgate/adapters';
import { createContextStore, type Principal, type VectorIndex } from '@memgate/core';
import { describe, expect, it } from 'vitest';
import { addBody } from '../../bench/lib/corpus.ts';
import { meteredStatements } from '../../bench/lib/statement-units.ts';
import { createFailingIndex } from '../support/context-fakes.ts';
import { createTestTable } from '../support/dynamo.ts';
import { createMemoryIndex } from '../support/memory-ports.ts';

// Issue 17: a client that syncs its files re-adds unchanged documents all the time. What a re-add consumes, read
// as bench/capacity.ts reads it (ReturnConsumedCapacity on every call, PartiQL metered on a shadow table), against
// DynamoDB Local: an unchanged document costs its existence read, nothing else.

const alice: Principal = { userId: 'alice', orgs: [], scopes: new Set(['context:read', 'context:write']) };
const band = { similarity_threshold: 1, minimum_similarity_threshold: 0, top_k: 20 };

interface Usage {
  read: number;
  write: number;
  requests: number;
  upserted: number;
}

async function setup() {
  const table = await createTestTable('readd');
  const shadow = await createTestTable('readd-shadow');
  const client = createDocumentClient({ endpoint: table.endpoint });
  let usage: Usage = { read: 0, write: 0, requests: 0, upserted: 0 };
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as Record<string, unknown>;
      input.ReturnConsumedCapacity = 'TOTAL';
      usage.requests += 1;
      if (context.commandName === 'BatchExecuteStatementCommand') {
        const run = await meteredStatements(
          table.documentClient,
          table.tableName,
          shadow.tableName,
          input.Statements as never[],
          () => next(args),
        );
        usage.write += run.units;
        return run.output;
      }
      const result = await next(args);
      const consumed = (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity;
      const reads = /^(BatchGet|Get|Query|Scan)/.test(String(context.commandName));
      type Capacity = { ReadCapacityUnits?: number; WriteCapacityUnits?: number; CapacityUnits?: number };
      for (const entry of (Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) as Capacity[]) {
        if (reads) usage.read += entry.ReadCapacityUnits ?? entry.CapacityUnits ?? 0;
        else usage.write += entry.WriteCapacityUnits ?? entry.CapacityUnits ?? 0;
      }
      return result;
    },
    { step: 'initialize', name: 'consumedCapacity' },
  );
  const memory = createMemoryIndex();
  const { index: failingIndex, failing } = createFailingIndex(memory.index);
  const index: VectorIndex = {
    ...failingIndex,
    upsert: (namespace, items) => {
      usage.upserted += items.length;
      return failingIndex.upsert(namespace, items);
    },
  };
  const clock = { now: () => new Date() };
  const repository = createDynamoContextRepository({ client, tableName: table.tableName, clock });
  const embedder = createLexicalEmbedder();
  let embedded = 0;
  const store = createContextStore({
    repository,
    index,
    embedder: {
      ...embedder,
      embed: (texts, purpose) => {
        embedded += texts.length;
        return embedder.embed(texts, purpose);
      },
      embedWords: (texts, words, purpose) => {
        embedded += texts.length;
        return (embedder.embedWords as NonNullable<typeof embedder.embedWords>)(texts, words, purpose);
      },
    },
    clock,
  });
  /** What `run` consumed: DynamoDB units and requests, vectors upserted, chunks embedded. */
  async function measure(run: () => Promise<unknown>): Promise<Usage & { embedded: number }> {
    usage = { read: 0, write: 0, requests: 0, upserted: 0 };
    embedded = 0;
    await run();
    return { ...usage, embedded };
  }
  const found = async (query: string) => (await store.search(alice, { query, ...band })).map((hit) => hit.contextId);
  return { store, repository, measure, failing, found, allIds: memory.allIds };
}

describe('re-adding a document: what it consumes (DynamoDB Local, ReturnConsumedCapacity)', () => {
  it('the same document of 10 chunks again: its existence read only, no write, no vector, no embedding', async () => {
    const s = await setup();
    const body = addBody({ firstSeed: 7, documents: 1, chunksPerDocument: 10, source: 'sync' });
    const first = await s.store.add(alice, body);
    expect(first.documents[0]?.chunks).toBe(10);
    const hits = await s.found('bench 7');
    const again = await s.measure(async () => expect(await s.store.add(alice, body)).toEqual(first));
    expect(again).toMatchObject({ write: 0, upserted: 0, embedded: 0, requests: 1 });
    // The document row (one unit, strongly consistent) and the tenant's generation row.
    expect(again.read).toBeLessThanOrEqual(2);
    expect(await s.found('bench 7')).toEqual(hits);
  });

  it('a changed document (its tags) is still replaced: every row and vector written again', async () => {
    const s = await setup();
    const body = addBody({ firstSeed: 8, documents: 1, chunksPerDocument: 10, source: 'sync' });
    await s.store.add(alice, body);
    const changed = await s.measure(() => s.store.add(alice, { ...body, tags: ['reviewed'] }));
    expect(changed.upserted).toBe(10);
    expect(changed.embedded).toBe(10);
    expect(changed.write).toBeGreaterThan(50);
    const tagged = await s.store.search(alice, { query: 'bench 8', ...band, metadata: { tags: 'reviewed' } });
    expect(tagged).toHaveLength(10);
    // Then the changed version is what is stored: adding it again writes nothing.
    expect(await s.measure(() => s.store.add(alice, { ...body, tags: ['reviewed'] }))).toMatchObject({
      write: 0,
      upserted: 0,
    });
  });

  it('an interrupted re-add (its upsert failed, the document pending) is repaired by the same add again', async () => {
    const s = await setup();
    const body = addBody({ firstSeed: 9, documents: 1, chunksPerDocument: 10, source: 'sync' });
    const [documentId] = (await s.store.add(alice, body)).contextIds;
    const changed = { ...body, tags: ['v2'] };
    s.failing.upsert = true;
    await expect(s.store.add(alice, changed)).rejects.toThrow();
    s.failing.upsert = false;
    expect(await s.found('bench 9')).toEqual([]);
    expect((await s.repository.get(documentId as string))?.status).toBe('pending');
    const repaired = await s.measure(() => s.store.add(alice, changed));
    expect(repaired.upserted).toBe(10);
    expect(await s.found('bench 9')).toHaveLength(10);
    expect((await s.repository.get(documentId as string))?.status).toBe('indexed');
  });
});
