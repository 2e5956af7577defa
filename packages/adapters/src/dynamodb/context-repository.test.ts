import { describe, expect, it } from 'vitest';
import { contextRepositoryConformance, recordFor } from '../../../../test/conformance/context-repository.ts';
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
});
