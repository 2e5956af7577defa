import { randomUUID } from 'node:crypto';
import { CreateTableCommand, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
import { createContextStore, type Principal } from '@memgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryIndex } from '../../../../test/support/memory-ports.ts';
import { type DynamoLocal, startDynamoLocal } from '../../../local/src/dynamo-local.ts';
import { createLexicalEmbedder } from '../embedders/lexical/index.ts';
import { createDocumentClient, DynamoDeadlineError } from './client.ts';
import { createDynamoContextRepository } from './context-repository.ts';
import { type IndexName, tableDefinition } from './table.ts';
import { addMissingIndexes, ensureTable, waitUntilActive } from './table-setup.ts';

const clock = { now: () => new Date() };
const alice: Principal = {
  userId: 'alice',
  orgs: [],
  scopes: new Set(['context:read', 'context:write', 'context:delete']),
};

/** The table as an older version created it: without the indexes added since. */
function olderDefinition(tableName: string, added: IndexName[]) {
  const definition = tableDefinition(tableName);
  const indexes = (definition.GlobalSecondaryIndexes ?? []).filter(
    (index) => !added.includes(index.IndexName as IndexName),
  );
  const used = new Set(['pk', 'sk', ...indexes.flatMap((index) => index.KeySchema?.map((key) => key.AttributeName))]);
  return {
    ...definition,
    GlobalSecondaryIndexes: indexes,
    AttributeDefinitions: definition.AttributeDefinitions?.filter((attribute) => used.has(attribute.AttributeName)),
  };
}

// Its own DynamoDB Local: the run's shared one, busy with every other test file's tables, has left an index it was
// building CREATING for over a minute.
let dynamo: DynamoLocal;
beforeAll(async () => {
  dynamo = await startDynamoLocal();
}, 90_000);
afterAll(() => dynamo?.stop());

describe('ensureTable', () => {
  it('adds the indexes an older table lacks, built from its items, and a delete by document then works', async () => {
    const documentClient = createDocumentClient({ endpoint: dynamo.endpoint });
    const tableName = `upgrade-${randomUUID().slice(0, 8)}`;
    await documentClient.send(
      new CreateTableCommand(
        olderDefinition(tableName, ['documentNamesByTenant', 'documentsBySource', 'documentsByFileName']),
      ),
    );
    const repository = createDynamoContextRepository({ client: documentClient, tableName, clock });
    const store = createContextStore({
      repository,
      index: createMemoryIndex().index,
      embedder: createLexicalEmbedder(),
      clock,
    });
    const documents = ['a.txt', 'b.txt', 'c.txt'].map((fileName) => ({
      content: `notes in ${fileName}`,
      fileName,
      fileType: 'text/plain',
    }));
    await store.add(alice, { documents, source: 'old' });
    await expect(repository.listDocumentNames('user:alice', { limit: 10 })).rejects.toThrow();

    const said: unknown[] = [];
    await ensureTable(documentClient, tableName, (message, fields) => said.push({ message, ...fields }));
    // The operator learns why this start takes long (minutes on a large local data directory), index by index.
    expect(said.filter((line) => String((line as { message: string }).message).startsWith('table upgrade'))).toEqual([
      expect.objectContaining({ index: 'documentNamesByTenant', table: tableName }),
      expect.objectContaining({ index: 'documentsBySource', table: tableName }),
      expect.objectContaining({ index: 'documentsByFileName', table: tableName }),
    ]);

    const { Table } = await documentClient.send(new DescribeTableCommand({ TableName: tableName }));
    const names = (Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName).sort();
    expect(names).toEqual((tableDefinition(tableName).GlobalSecondaryIndexes ?? []).map((i) => i.IndexName).sort());
    expect(Table?.GlobalSecondaryIndexes?.every((index) => index.IndexStatus === 'ACTIVE')).toBe(true);
    const slim = Table?.GlobalSecondaryIndexes?.find((index) => index.IndexName === 'documentNamesByTenant');
    expect(slim?.Projection?.ProjectionType).toBe('INCLUDE');

    const listed = await repository.listDocumentNames('user:alice', { limit: 10 });
    expect(listed.items.map((document) => document.metadata.file_name).sort()).toEqual(['a.txt', 'b.txt', 'c.txt']);
    await store.delete(alice, { source: 'b.txt' });
    const left = await repository.listByTenant('user:alice', { documentsOnly: true, limit: 10 });
    expect(left.items.filter((record) => record.status === 'indexed').map((r) => r.metadata.file_name)).toEqual([
      'c.txt',
      'a.txt',
    ]);
    said.length = 0;
    await ensureTable(documentClient, tableName, (message, fields) => said.push({ message, ...fields }));
    expect(said).toEqual([]); // nothing left to add: a no-op, and silent
  }, 60_000); // DynamoDB Local builds an index slowly while the run's other files keep it busy
});

describe('waitUntilActive', () => {
  it('asks again when DescribeTable outlives its deadline (DynamoDB Local building an index on a large table)', async () => {
    let asked = 0;
    const client = {
      send: async () => {
        asked += 1;
        if (asked <= 2) throw new DynamoDeadlineError('DescribeTable', 25_000);
        return {
          Table: { TableStatus: 'ACTIVE', GlobalSecondaryIndexes: [{ IndexName: 'x', IndexStatus: 'ACTIVE' }] },
        };
      },
    };
    const table = await waitUntilActive(client as never, 'memgate');
    expect(table.TableStatus).toBe('ACTIVE');
    expect(asked).toBe(3);
  });

  it('still fails on any other error', async () => {
    const client = { send: async () => Promise.reject(new Error('AccessDeniedException')) };
    await expect(waitUntilActive(client as never, 'memgate')).rejects.toThrow('AccessDeniedException');
  });
});

describe('addMissingIndexes', () => {
  const definition = {
    TableName: 'memgate',
    AttributeDefinitions: [{ AttributeName: 'gx', AttributeType: 'S' as const }],
    KeySchema: [{ AttributeName: 'pk', KeyType: 'HASH' as const }],
    GlobalSecondaryIndexes: [
      { IndexName: 'x', KeySchema: [{ AttributeName: 'gx', KeyType: 'HASH' as const }], Projection: {} },
    ],
  };
  /** A table without index x; UpdateTable is refused; `after` says what DescribeTable then answers, call by call. */
  function refusedClient(after: Array<'deadline' | 'with x' | 'without x'>) {
    let described = 0;
    return {
      send: async (command: { constructor: { name: string } }) => {
        if (command.constructor.name === 'UpdateTableCommand') throw new Error('ResourceInUseException');
        described += 1;
        const answer = described === 1 ? 'without x' : after[described - 2];
        if (answer === 'deadline') throw new DynamoDeadlineError('DescribeTable', 25_000);
        const indexes = answer === 'with x' ? [{ IndexName: 'x', IndexStatus: 'ACTIVE' }] : [];
        return { Table: { TableStatus: 'ACTIVE', GlobalSecondaryIndexes: indexes } };
      },
    };
  }

  it("takes a refused creation for a concurrent caller's when the index is there, even if DynamoDB is slow to say", async () => {
    await expect(
      addMissingIndexes(refusedClient(['deadline', 'with x', 'with x']) as never, definition),
    ).resolves.toBeUndefined();
  });

  it('fails with the refusal when the index is not there', async () => {
    await expect(addMissingIndexes(refusedClient(['without x']) as never, definition)).rejects.toThrow(
      'ResourceInUseException',
    );
  });
});
