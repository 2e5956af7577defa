import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createLexicalEmbedder } from '@memgate/adapters';
import { type ContextRepository, type Embedder, runCleanup } from '@memgate/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createFailingContextHarness } from '../support/context-app.ts';
import { createMemoryIndex } from '../support/memory-ports.ts';
import { tokenFor } from '../support/tokens.ts';

// Issue 12 item 16: a record the cleanup gave up on (`failed`) leaves its work list, so later runs do not read it
// again, forever. It stays hidden; its owner's delete removes it, adding the document again replaces it.

let h: Awaited<ReturnType<typeof createFailingContextHarness>>['h'];
let failing: Awaited<ReturnType<typeof createFailingContextHarness>>['failing'];

beforeAll(async () => {
  ({ h, failing } = await createFailingContextHarness());
});

const down: Embedder = { ...createLexicalEmbedder(), embed: () => Promise.reject(new Error('embedder down')) };

/** One cleanup run; returns the ids its work list gave it. */
async function cleanupListing(embedder: Embedder): Promise<string[]> {
  const listed: string[] = [];
  const repository: ContextRepository = {
    ...h.repository,
    async listUnsettled(options) {
      const page = await h.repository.listUnsettled(options);
      listed.push(...page.items.map((record) => record._id));
      return page;
    },
  };
  await runCleanup({
    repository,
    index: createMemoryIndex().index,
    embedder,
    clock: { now: () => new Date(Date.now() + 3_600_000) },
    deadline: new Date(Date.now() + 7_200_000),
    maxAttempts: 1,
  });
  return listed;
}

describe('failed records and the cleanup', () => {
  it('a record the cleanup gave up on is not read again by later runs; a delete still removes it', async () => {
    const token = await tokenFor('fiona');
    // A re-add that fails leaves its document `pending` (a new document's failed add leaves no document row).
    // (A re-add that changes the document, its tags: an identical one writes nothing.)
    const add = (tags?: string[]) =>
      h.call('POST', 'add', token, { documents: [{ content: 'tide tables', fileName: 't.txt' }], tags });
    expect((await add()).status).toBe(201);
    failing.upsert = true;
    const refused = await add(['coast']);
    failing.upsert = false;
    expect(refused.status).toBe(500);
    const document = (await h.repository.listByOwner('fiona', { limit: 10, documentsOnly: true })).items[0];
    const id = document?._id as string;

    expect(await cleanupListing(down)).toContain(id); // attempt 1
    expect(await cleanupListing(down)).toContain(id); // over the limit: failed
    expect((await h.repository.get(id))?.status).toBe('failed');
    expect(await cleanupListing(down)).not.toContain(id);
    expect(await cleanupListing(createLexicalEmbedder())).not.toContain(id);
    expect((await h.call('GET', 'view/docs', token)).json.documents).toEqual([]);

    expect((await h.call('POST', 'delete', token, { source: 't.txt' })).status).toBe(204);
    expect((await h.repository.get(id))?.status).toBe('deleting');
    await cleanupListing(down);
    expect(await h.repository.get(id)).toBeUndefined();
  });

  it('a failed record still on the work list (written before it left it) is taken off by the next run', async () => {
    const token = await tokenFor('gus');
    const add = (tags?: string[]) =>
      h.call('POST', 'add', token, { documents: [{ content: 'old failure', fileName: 'o.txt' }], tags });
    await add();
    failing.upsert = true;
    await add(['again']);
    failing.upsert = false;
    const document = (await h.repository.listByOwner('gus', { limit: 10, documentsOnly: true })).items[0];
    const id = document?._id as string;
    await h.repository.transition([id], ['pending'], 'failed');
    // As an item written by the previous version looked: failed, with the unsettled index keys.
    await h.table.documentClient.send(
      new UpdateCommand({
        TableName: h.table.tableName,
        Key: { pk: `ctx#${id}`, sk: 'ctx' },
        UpdateExpression: 'SET gsi4pk = :p, gsi4sk = :s',
        ExpressionAttributeValues: { ':p': 'ctx#unsettled', ':s': `2020-01-01T00:00:00.000Z#${id}` },
      }),
    );
    expect(await cleanupListing(down)).toContain(id);
    expect(await cleanupListing(down)).not.toContain(id);
    expect((await h.repository.get(id))?.status).toBe('failed');
  });
});
