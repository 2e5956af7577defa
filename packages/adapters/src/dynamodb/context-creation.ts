import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ContextRecord } from '@memgate/core';
import { toItem } from './context-items.ts';

const PUT_CONCURRENCY = 8;

/**
 * Creates records that do not exist yet: one conditional PutItem each (`attribute_not_exists`), a few at once.
 * Not a transaction: a transactional write costs twice the write units, and the records are independent (one
 * existing does not stop the others). Returns the ids that already existed, left as they were.
 */
export async function createAbsent(
  client: DynamoDBDocumentClient,
  tableName: string,
  records: readonly ContextRecord[],
): Promise<string[]> {
  const latest = [...new Map(records.map((record) => [record._id, record])).values()];
  const existing = new Set<string>();
  let next = 0;
  async function worker(): Promise<void> {
    while (next < latest.length) {
      const record = latest[next++] as ContextRecord;
      try {
        await client.send(
          new PutCommand({
            TableName: tableName,
            Item: toItem(record),
            ConditionExpression: 'attribute_not_exists(pk)',
          }),
        );
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
        existing.add(record._id);
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(PUT_CONCURRENCY, latest.length) }, worker));
  return latest.filter((record) => existing.has(record._id)).map((record) => record._id);
}
