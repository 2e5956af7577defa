import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { ContextRecord } from '@memgate/core';
import { groupsOf } from './batch.ts';
import { toItem } from './context-items.ts';

/** DynamoDB's limit of actions in one transaction (an add has at most 100 documents: one transaction). */
const PER_TRANSACTION = 100;
const PUT_CONCURRENCY = 8;
const ABSENT = 'attribute_not_exists(pk)';

/**
 * Creates records that do not exist yet: one transaction of conditional puts per 100 (one request for an add's
 * documents). When a transaction is cancelled (a record exists, or a concurrent write collided), its records go one
 * by one as conditional puts, so each new one is still written. Returns the ids that already existed.
 */
export async function createAbsent(
  client: DynamoDBDocumentClient,
  tableName: string,
  records: readonly ContextRecord[],
): Promise<string[]> {
  const latest = [...new Map(records.map((record) => [record._id, record])).values()];
  const existing: string[] = [];
  for (const group of groupsOf(latest, PER_TRANSACTION)) {
    try {
      await client.send(
        new TransactWriteCommand({
          TransactItems: group.map((record) => ({
            Put: { TableName: tableName, Item: toItem(record), ConditionExpression: ABSENT },
          })),
        }),
      );
    } catch (error) {
      if (!(error instanceof TransactionCanceledException)) throw error;
      existing.push(...(await putEachIfAbsent(client, tableName, group)));
    }
  }
  return existing;
}

async function putEachIfAbsent(
  client: DynamoDBDocumentClient,
  tableName: string,
  records: readonly ContextRecord[],
): Promise<string[]> {
  const existing = new Set<string>();
  let next = 0;
  async function worker(): Promise<void> {
    while (next < records.length) {
      const record = records[next++] as ContextRecord;
      try {
        await client.send(new PutCommand({ TableName: tableName, Item: toItem(record), ConditionExpression: ABSENT }));
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        existing.add(record._id);
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(PUT_CONCURRENCY, records.length) }, worker));
  return records.filter((record) => existing.has(record._id)).map((record) => record._id);
}
