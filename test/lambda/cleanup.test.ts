import { DeleteCommand, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ContextRecord, ContextRepository, TenantKey, VectorIndex } from '@memgate/core';
import type { Context, ScheduledEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoSessionRepository } from '../../packages/adapters/src/dynamodb/session-repository.ts';
import { createLexicalEmbedder } from '../../packages/adapters/src/embedders/lexical/index.ts';
import { createPineconeVectorIndex } from '../../packages/adapters/src/pinecone/index.ts';
import { vectorItemOf } from '../../packages/core/src/cleanup/vectors.ts';
import { BUNDLES_HOOK_TIMEOUT_MS } from '../support/bundles.ts';
import { lambdaContext } from '../support/lambda.ts';
import { contextRepositoryFor, type LambdaHarness, PINECONE_KEY, startLambdaHarness } from './harness.ts';

type CleanupHandler = (event: ScheduledEvent, context: Context) => Promise<Record<string, number | boolean>>;

const TENANT: TenantKey = 'user:alice';
const OLD = new Date(Date.now() - 30 * 60_000).toISOString();
const embedder = createLexicalEmbedder({ dimension: 512 });

let harness: LambdaHarness;
let cleanup: CleanupHandler;
let vectors: VectorIndex;
let repository: ContextRepository;

const scheduled: ScheduledEvent = {
  version: '0',
  id: 'event-1',
  'detail-type': 'Scheduled Event',
  source: 'aws.events',
  account: '123456789012',
  time: new Date().toISOString(),
  region: 'us-east-1',
  resources: ['arn:aws:events:us-east-1:123456789012:rule/CleanupSchedule'],
  detail: {},
};

function record(id: string, fields: Partial<ContextRecord>): ContextRecord {
  return {
    _id: id,
    kind: 'chunk',
    user_id: 'alice',
    organization_id: null,
    parent_context_nodes: [],
    children_context_nodes: [],
    context_type: 'resource',
    tags: [],
    source: 'notes',
    content: `text of ${id}`,
    blob: null,
    indexed: false,
    indexable: true,
    governing_policies: null,
    override_policy: false,
    telemetry_data: {},
    createdAt: OLD,
    updatedAt: OLD,
    scopes: ['internal'],
    metadata: { size: 10, file_name: 'notes.md', doc_type: 'text/markdown', modalities: ['text'] },
    corresponding_vector_id: id,
    text: `text of ${id}`,
    status: 'pending',
    tenant: TENANT,
    document_id: id,
    attempts: 0,
    ...fields,
  };
}

async function vectorOf(chunk: ContextRecord) {
  const [values] = await embedder.embed([chunk.text], 'document');
  return vectorItemOf(chunk, values as Float32Array);
}

async function idsIn(namespace: TenantKey): Promise<string[]> {
  return (await vectors.listIds(namespace, { limit: 100 })).items.sort();
}

beforeAll(async () => {
  harness = await startLambdaHarness();
  cleanup = await harness.handlerOf<CleanupHandler>('cleanup');
  repository = contextRepositoryFor(harness.table);
  vectors = createPineconeVectorIndex({ apiKey: PINECONE_KEY, indexName: 'memgate', host: harness.pinecone.url });
}, BUNDLES_HOOK_TIMEOUT_MS);

afterAll(() => harness?.close());

describe('cleanup Lambda (scheduled)', () => {
  it('repairs what a failed add or delete leaves, and two overlapping runs do no harm', async () => {
    // An add that wrote its rows but died before its vectors: a pending document with its chunks.
    const stuck = record('doc-a', { kind: 'document', children_context_nodes: ['doc-a#0', 'doc-a#1'], text: '' });
    const stuckChunks = [0, 1].map((i) =>
      record(`doc-a#${i}`, { document_id: 'doc-a', parent_context_nodes: ['doc-a'], status: 'indexed', indexed: true }),
    );
    // An add whose vectors landed but whose final transition did not.
    const landed = record('doc-b', { kind: 'document', children_context_nodes: ['doc-b#0'], text: '' });
    const landedChunk = record('doc-b#0', { document_id: 'doc-b', status: 'indexed', indexed: true });
    // A delete that hid its document and chunk, removed nothing else.
    const gone = record('doc-c', { kind: 'document', status: 'deleting', children_context_nodes: ['doc-c#0'] });
    const goneChunk = record('doc-c#0', { document_id: 'doc-c', status: 'deleting' });
    await repository.putMany([stuck, ...stuckChunks, landed, landedChunk, gone, goneChunk]);
    await vectors.upsert(TENANT, [await vectorOf(landedChunk), await vectorOf(goneChunk)]);
    // A vector whose rows are gone (a delete that lost its rows before its vectors).
    await vectors.upsert(TENANT, [{ ...(await vectorOf(goneChunk)), id: 'orphan#0' }]);

    // A chat session and its replay past their expiry (DynamoDB's TTL lags by up to days), and a live session.
    const sessions = createDynamoSessionRepository({
      client: harness.table.documentClient,
      tableName: harness.table.tableName,
    });
    const session = (chatId: string, expiresAt: string) => ({
      chatId,
      ownerId: 'alice',
      title: 'Leave policy',
      createdAt: OLD,
      updatedAt: OLD,
      expiresAt,
      messages: [],
    });
    const future = new Date(Date.now() + 86_400_000).toISOString();
    await sessions.putSession(session('old-chat', OLD));
    await sessions.putReplay({
      replaySessionID: 'old-replay',
      chatId: 'old-chat',
      ownerId: 'alice',
      createdAt: OLD,
      expiresAt: OLD,
      events: [],
    });
    await sessions.putSession(session('live-chat', future));

    const context = lambdaContext('cleanup', 60_000);
    const [first, second] = await Promise.all([cleanup(scheduled, context), cleanup(scheduled, context)]);
    expect(first?.complete && second?.complete).toBe(true);
    expect(Number(first?.reindexed) + Number(second?.reindexed)).toBe(2);

    expect(await idsIn(TENANT)).toEqual(['doc-a#0', 'doc-a#1', 'doc-b#0']);
    const rows = await repository.getMany(['doc-a', 'doc-a#0', 'doc-a#1', 'doc-b', 'doc-b#0', 'doc-c', 'doc-c#0']);
    expect(Object.fromEntries(rows.map((row) => [row._id, row.status]))).toEqual({
      'doc-a': 'indexed',
      'doc-a#0': 'indexed',
      'doc-a#1': 'indexed',
      'doc-b': 'indexed',
      'doc-b#0': 'indexed',
    });
    expect((await repository.listUnsettled({ before: new Date().toISOString(), limit: 10 })).items).toEqual([]);
    expect(Number(first?.expiredSessions) + Number(second?.expiredSessions)).toBeGreaterThanOrEqual(2);
    const later = new Date(Date.parse(future) + 1_000).toISOString();
    expect((await sessions.listExpired({ before: later, limit: 10 })).items).toEqual(['chat#live-chat']);

    // Nothing left to do: a third run changes nothing.
    expect(await cleanup(scheduled, context)).toMatchObject({
      reindexed: 0,
      failed: 0,
      deletedRecords: 0,
      orphanVectors: 0,
      expiredSessions: 0,
      complete: true,
    });
  });

  it('starts no work when the invocation has no time left, and says it is incomplete', async () => {
    await repository.putMany([record('late', {})]);
    const report = await cleanup(scheduled, lambdaContext('cleanup', 5_000));
    expect(report).toMatchObject({ reindexed: 0, complete: false });
    expect((await repository.get('late'))?.status).toBe('pending');
    expect(await cleanup(scheduled, lambdaContext('cleanup', 60_000))).toMatchObject({ reindexed: 1, complete: true });
  });

  it('gives document rows of the previous version their name keys, the marker left for a pass 30 minutes on', async () => {
    const { documentClient, tableName } = harness.table;
    const marker = { pk: 'ctx#document-names', sk: 'backfill' };
    const get = async (key: Record<string, string>) =>
      (await documentClient.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))).Item;
    const document = record('names-doc', { kind: 'document', status: 'indexed', indexed: true, source: 'kept.md' });
    await repository.putMany([document]);
    // As the previous version left the table: no name keys on its rows, no backfill progress.
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: 'ctx#names-doc', sk: 'ctx' },
        UpdateExpression: 'REMOVE gsi6pk, gsi6sk, gsi7pk, gsi7sk',
      }),
    );
    await documentClient.send(new DeleteCommand({ TableName: tableName, Key: marker }));
    expect(await repository.findDocumentsNamed(TENANT, 'kept.md')).toBeUndefined();

    expect(await cleanup(scheduled, lambdaContext('cleanup', 60_000))).toMatchObject({ complete: true });
    expect((await get({ pk: 'ctx#names-doc', sk: 'ctx' }))?.gsi6pk).toEqual(
      expect.stringMatching(/^ctx#user:alice#name#/),
    );
    const progress = await get(marker);
    expect(progress).toMatchObject({ firstRunAt: expect.any(String) });
    expect(progress?.done).toBeUndefined();
  });
});
