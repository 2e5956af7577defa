import { randomUUID } from 'node:crypto';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type ContextRepository, createContextStore, type Principal } from '@memgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMemoryIndex } from '../../../../test/support/memory-ports.ts';
import { type DynamoLocal, startDynamoLocal } from '../../../local/src/dynamo-local.ts';
import { createLexicalEmbedder } from '../embedders/lexical/index.ts';
import { createDocumentClient } from './client.ts';
import { createDynamoContextRepository } from './context-repository.ts';
import { backfillDocumentNames } from './document-names.ts';
import { tableDefinition } from './table.ts';
import { addMissingIndexes, ensureTable } from './table-setup.ts';

// Document rows written before documentsBySource/documentsByFileName existed have no name keys: a delete by document
// must still find them, before the backfill (through the slim listing) and after it (through the indexes by name).
const alice: Principal = {
  userId: 'alice',
  orgs: [],
  scopes: new Set(['context:read', 'context:write', 'context:delete']),
};
const NAME_KEYS = ['gsi6pk', 'gsi6sk', 'gsi7pk', 'gsi7sk'];
const MINUTE = 60_000;

// Its own DynamoDB Local: the run's shared one, busy with every other test file's tables, has left an index it was
// building CREATING for over a minute (table-setup.test.ts too).
let dynamo: DynamoLocal;
beforeAll(async () => {
  dynamo = await startDynamoLocal();
}, 90_000);
afterAll(() => dynamo?.stop());

/** A table as the previous version created it (no indexes by name). */
async function olderTable() {
  const documentClient = createDocumentClient({ endpoint: dynamo.endpoint });
  const tableName = `names-${randomUUID().slice(0, 8)}`;
  const definition = tableDefinition(tableName);
  const indexes = (definition.GlobalSecondaryIndexes ?? []).filter(
    (index) => !['documentsBySource', 'documentsByFileName'].includes(index.IndexName as string),
  );
  await documentClient.send(
    new CreateTableCommand({
      ...definition,
      GlobalSecondaryIndexes: indexes,
      AttributeDefinitions: definition.AttributeDefinitions?.filter((a) => !NAME_KEYS.includes(a.AttributeName ?? '')),
    }),
  );
  return { documentClient, tableName };
}

/** Removes the name keys from every document row: what the previous version wrote. */
async function writtenByPreviousVersion(client: DynamoDBDocumentClient, tableName: string, onlyFile?: string) {
  const { Items = [] } = await client.send(new ScanCommand({ TableName: tableName }));
  const chosen = (row: Record<string, unknown>) =>
    row.kind === 'document' && (!onlyFile || (row.metadata as { file_name: string }).file_name === onlyFile);
  for (const item of Items.filter(chosen)) {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: item.pk, sk: item.sk },
        UpdateExpression: 'REMOVE gsi6pk, gsi6sk, gsi7pk, gsi7sk',
      }),
    );
  }
}

/** The index names a repository's queries use, recorded at the client. */
function recordingQueries(client: DynamoDBDocumentClient) {
  const indexes: string[] = [];
  const recording = new Proxy(client, {
    get(target, property, receiver) {
      if (property !== 'send') return Reflect.get(target, property, receiver);
      return (command: { input: { IndexName?: string } }) => {
        if (command.input.IndexName) indexes.push(command.input.IndexName);
        return target.send(command as never);
      };
    },
  });
  return { recording, indexes };
}

function storeOver(repository: ContextRepository) {
  const clock = { now: () => new Date() };
  return createContextStore({ repository, index: createMemoryIndex().index, embedder: createLexicalEmbedder(), clock });
}

const visibleFileNames = async (repository: ContextRepository) =>
  (await repository.listByTenant('user:alice', { documentsOnly: true, limit: 100 })).items
    .filter((record) => record.status === 'indexed')
    .map((record) => `${record.source}/${record.metadata.file_name}`)
    .sort();

const documents = (names: string[]) =>
  names.map((fileName) => ({ content: `notes in ${fileName}`, fileName, fileType: 'text/plain' }));

describe('document names of rows written before the indexes by name', () => {
  it('are found by the slim listing before the backfill, by the indexes once a settled pass wrote the marker', async () => {
    const { documentClient, tableName } = await olderTable();
    const clock = { now: () => new Date() };
    const writer = createDynamoContextRepository({ client: documentClient, tableName, clock });
    await storeOver(writer).add(alice, { documents: documents(['a.txt', 'b.txt', 'c.txt']), source: 'old' });
    await storeOver(writer).add(alice, { documents: documents(['d.txt', 'e.txt']), source: 'older' });
    await writtenByPreviousVersion(documentClient, tableName);
    // The deploy adds the indexes (DynamoDB builds them: empty, as no row has their keys); the backfill has not run.
    await addMissingIndexes(documentClient, tableDefinition(tableName));

    const before = recordingQueries(documentClient);
    const repository = createDynamoContextRepository({ client: before.recording, tableName, clock });
    expect(await repository.findDocumentsNamed('user:alice', 'b.txt')).toBeUndefined();
    await storeOver(repository).delete(alice, { source: 'b.txt' });
    expect(await visibleFileNames(repository)).toEqual(['old/a.txt', 'old/c.txt', 'older/d.txt', 'older/e.txt']);
    expect(before.indexes).toContain('documentNamesByTenant');

    // The cleanup's backfill. Its first run gives every row its keys, but the marker waits for a pass that began
    // 30 minutes later, when the previous version can no longer be writing rows without keys.
    const t0 = Date.now();
    const at = (ms: number) => ({ now: () => new Date(t0 + ms), settleMs: 30 * MINUTE });
    expect(await backfillDocumentNames(documentClient, tableName, at(0))).toEqual({ updated: 5, done: false });
    await writtenByPreviousVersion(documentClient, tableName, 'd.txt'); // a late write of the previous version
    expect(await backfillDocumentNames(documentClient, tableName, at(10 * MINUTE))).toEqual({
      updated: 0,
      done: false,
    });
    expect(await repository.findDocumentsNamed('user:alice', 'd.txt')).toBeUndefined();
    expect(await backfillDocumentNames(documentClient, tableName, at(31 * MINUTE))).toEqual({ updated: 1, done: true });
    expect(await backfillDocumentNames(documentClient, tableName, at(32 * MINUTE))).toEqual({ updated: 0, done: true });

    const after = recordingQueries(documentClient);
    const indexed = createDynamoContextRepository({ client: after.recording, tableName, clock });
    const named = await indexed.findDocumentsNamed('user:alice', 'd.txt');
    expect(named?.map((document) => document.metadata.file_name)).toEqual(['d.txt']);
    expect(await indexed.findDocumentsNamed('user:bob', 'd.txt')).toEqual([]);
    await storeOver(indexed).delete(alice, { source: 'older' });
    expect(await visibleFileNames(indexed)).toEqual(['old/a.txt', 'old/c.txt']);
    await storeOver(indexed).delete(alice, { source: 'a.txt' });
    expect(await visibleFileNames(indexed)).toEqual(['old/c.txt']);
    expect(after.indexes).toContain('documentsBySource');
    expect(after.indexes).toContain('documentsByFileName');
    expect(after.indexes).not.toContain('documentNamesByTenant');
  }, 60_000);

  it('ensureTable on an older local table adds the indexes and backfills at once', async () => {
    const { documentClient, tableName } = await olderTable();
    const clock = { now: () => new Date() };
    const writer = createDynamoContextRepository({ client: documentClient, tableName, clock });
    await storeOver(writer).add(alice, { documents: documents(['f.txt', 'g.txt']), source: 'local' });
    await writtenByPreviousVersion(documentClient, tableName);
    await ensureTable(documentClient, tableName);
    const named = await writer.findDocumentsNamed('user:alice', 'local');
    expect(named?.map((document) => document.metadata.file_name).sort()).toEqual(['f.txt', 'g.txt']);
    await storeOver(writer).delete(alice, { source: 'g.txt' });
    expect(await visibleFileNames(writer)).toEqual(['local/f.txt']);
  }, 60_000);
});
