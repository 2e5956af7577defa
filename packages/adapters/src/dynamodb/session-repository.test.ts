import { describe, expect, it } from 'vitest';
import { expiringItemsConformance } from '../../../../test/conformance/expiring-items.ts';
import { sessionFor, sessionRepositoryConformance } from '../../../../test/conformance/session-repository.ts';
import { createTestTable } from '../../../../test/support/dynamo.ts';
import { createDynamoSessionRepository } from './session-repository.ts';

const table = createTestTable('sessions');
const factory = async () => {
  const { documentClient, tableName } = await table;
  return createDynamoSessionRepository({ client: documentClient, tableName });
};

sessionRepositoryConformance('DynamoDB', factory);
expiringItemsConformance('DynamoDB session repository', async () => {
  const repository = await factory();
  return {
    items: repository,
    async store(expiresAt) {
      const session = sessionFor({ expiresAt });
      await repository.putSession(session);
      return `chat#${session.chatId}`;
    },
  };
});

describe('DynamoDB session repository', () => {
  it('keeps the newest messages when a session outgrows the item size limit', async () => {
    const repository = await factory();
    const big = 'x'.repeat(100_000);
    const messages = Array.from({ length: 6 }, (_, index) => ({
      id: `m${index}`,
      role: 'user' as const,
      content: `${index} ${big}`,
      createdAt: '2030-01-01T00:00:00.000Z',
    }));
    const session = sessionFor({ messages });
    await repository.putSession(session);
    const stored = await repository.getSession(session.chatId, new Date('2030-01-01T00:00:00.000Z'));
    const ids = stored?.messages.map((message) => message.id) ?? [];
    expect(ids.length).toBeGreaterThan(0);
    expect(ids.length).toBeLessThan(6);
    expect(ids.at(-1)).toBe('m5');
  });

  it('reads a session written before versions as version 0, and writes it once from there', async () => {
    const repository = await factory();
    const session = sessionFor();
    const { documentClient, tableName } = await table;
    const { PutCommand } = await import('@aws-sdk/lib-dynamodb');
    const { sessionToItem } = await import('./session-items.ts');
    await documentClient.send(new PutCommand({ TableName: tableName, Item: sessionToItem(session) }));
    const read = await repository.getSession(session.chatId, new Date('2030-01-01T00:00:00.000Z'));
    expect(read?.version).toBe(0);
    expect(await repository.putSession(read as typeof session)).toBe(true);
    expect(await repository.putSession(read as typeof session)).toBe(false);
  });

  it('sets the TTL attribute in epoch seconds', async () => {
    const repository = await factory();
    const session = sessionFor({ expiresAt: '2030-01-31T00:00:00.000Z' });
    await repository.putSession(session);
    const { documentClient, tableName } = await table;
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const raw = await documentClient.send(
      new GetCommand({ TableName: tableName, Key: { pk: `chat#${session.chatId}`, sk: 'session' } }),
    );
    expect(raw.Item?.expiresAt).toBe(Date.parse('2030-01-31T00:00:00.000Z') / 1000);
  });
});
