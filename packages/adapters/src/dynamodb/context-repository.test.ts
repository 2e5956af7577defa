import { describe, expect, it } from 'vitest';
import { recordFor } from '../../../../test/conformance/context-record.ts';
import { contextRepositoryConformance } from '../../../../test/conformance/context-repository.ts';
import { createTestTable } from '../../../../test/support/dynamo.ts';
import { createDynamoContextRepository } from './context-repository.ts';

const clock = { now: () => new Date('2030-01-01T00:00:00.000Z') };
const table = createTestTable('ctxrepo');
const factory = async () => {
  const { documentClient, tableName } = await table;
  return createDynamoContextRepository({ client: documentClient, tableName, clock });
};

contextRepositoryConformance('DynamoDB', factory);

describe('DynamoDB context repository', () => {
  it('stores a chunk text once and gives the content back on read', async () => {
    const repository = await factory();
    const record = recordFor({ text: 'body', content: 'body' });
    await repository.putMany([record]);
    const { documentClient, tableName } = await table;
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const raw = await documentClient.send(
      new GetCommand({ TableName: tableName, Key: { pk: `ctx#${record._id}`, sk: 'ctx' } }),
    );
    expect(raw.Item?.content).toBeUndefined();
    expect((await repository.get(record._id))?.content).toBe('body');
  });

  it('gives a tenant whose generation row was wiped a tag it never had, and none to a row without an epoch', async () => {
    const repository = await factory();
    const { documentClient, tableName } = await table;
    const { DeleteCommand, PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const tenant = `user:wiped-${Date.now()}` as const;
    const key = { pk: `ctx#generation#${tenant}`, sk: 'generation' };
    const seen = new Set<string>();
    for (let round = 0; round < 3; round++) {
      const tag = (await repository.ensureGenerations([tenant])).get(tenant) as string;
      expect(seen.has(tag)).toBe(false);
      seen.add(tag);
      // A user resets DynamoDB Local (the row goes) and keeps DATA_DIR: the counter starts again at 0.
      await documentClient.send(new DeleteCommand({ TableName: tableName, Key: key }));
      expect(await repository.readGenerations([tenant])).toEqual(new Map());
    }
    // A row written before epochs (a counter only) vouches for nothing until a bump gives it one.
    await documentClient.send(new PutCommand({ TableName: tableName, Item: { ...key, tenant, generation: 4 } }));
    expect(await repository.readGenerations([tenant])).toEqual(new Map());
    await repository.bumpGenerations([tenant]);
    expect((await repository.readGenerations([tenant])).get(tenant)).toMatch(/:5$/);
  });
});
