import { ConditionalCheckFailedException, TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, type DynamoDBDocumentClient, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { RecordStatus } from '@memgate/core';
import { groupsOf } from './batch.ts';
import { recordKey } from './context-items.ts';

/** Conditional deletes in flight at once for one call. */
const DELETE_CONCURRENCY = 16;
/** A transaction holds at most 100 actions: the document's condition check and 99 chunk deletes. */
const CHILDREN_PER_TRANSACTION = 99;
/** A transaction that collided with a concurrent write on one of its items is tried again this often. */
const CONFLICT_ATTEMPTS = 4;

/**
 * Deletes the rows of `ids` only where their status is still `status` (conditional DeleteItem, a few at once; a
 * PartiQL DELETE would also report rows that were already gone as deleted). Returns the ids deleted; a row that
 * moved on (the same document added again) or is already gone is left alone.
 */
export function deleteWhereStatus(
  client: DynamoDBDocumentClient,
  tableName: string,
  ids: readonly string[],
  status: RecordStatus,
): Promise<string[]> {
  return deleteWhereEqual(
    client,
    tableName,
    [...new Set(ids)].map((id) => ({ id, value: status })),
    'status',
  );
}

/** Deletes rows only while their `updatedAt` is the one given (not written again since it was read). */
export function deleteWhereUnchanged(
  client: DynamoDBDocumentClient,
  tableName: string,
  rows: readonly { _id: string; updatedAt: string }[],
): Promise<string[]> {
  const latest = new Map(rows.map((row) => [row._id, row.updatedAt]));
  return deleteWhereEqual(
    client,
    tableName,
    [...latest].map(([id, value]) => ({ id, value })),
    'updatedAt',
  );
}

/** Conditional DeleteItems, a few at once: each row goes only while `attribute` equals its `value`. */
async function deleteWhereEqual(
  client: DynamoDBDocumentClient,
  tableName: string,
  rows: readonly { id: string; value: string }[],
  attribute: 'status' | 'updatedAt',
): Promise<string[]> {
  const deleted = new Set<string>();
  let next = 0;
  async function worker(): Promise<void> {
    while (next < rows.length) {
      const { id, value } = rows[next++] as { id: string; value: string };
      try {
        await client.send(
          new DeleteCommand({
            TableName: tableName,
            Key: recordKey(id),
            ConditionExpression: '#attribute = :value',
            ExpressionAttributeNames: { '#attribute': attribute },
            ExpressionAttributeValues: { ':value': value },
          }),
        );
        deleted.add(id);
      } catch (error) {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(DELETE_CONCURRENCY, rows.length) }, worker));
  return rows.filter((row) => deleted.has(row.id)).map((row) => row.id);
}

/**
 * Deletes the rows of `ids` (a document's chunks) only while the document `guardId` is still in `status`: each
 * transaction checks the document and deletes up to 99 chunks, all or nothing. Stops and returns false as soon as
 * the document has left `status` (it was added again: its chunks are its new rows and must stay).
 */
export async function deleteChildrenWhile(
  client: DynamoDBDocumentClient,
  tableName: string,
  guardId: string,
  ids: readonly string[],
  status: RecordStatus,
): Promise<boolean> {
  const check = {
    ConditionCheck: {
      TableName: tableName,
      Key: recordKey(guardId),
      ConditionExpression: '#status = :status',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':status': status },
    },
  };
  for (const group of groupsOf([...new Set(ids)], CHILDREN_PER_TRANSACTION)) {
    const deletes = group.map((id) => ({ Delete: { TableName: tableName, Key: recordKey(id) } }));
    for (let attempt = 1; ; attempt++) {
      try {
        await client.send(new TransactWriteCommand({ TransactItems: [check, ...deletes] }));
        break;
      } catch (error) {
        if (!(error instanceof TransactionCanceledException)) throw error;
        const reasons = error.CancellationReasons ?? [];
        if (reasons[0]?.Code === 'ConditionalCheckFailed') return false;
        const conflict = reasons.some((reason) => reason.Code === 'TransactionConflict');
        if (!conflict || attempt >= CONFLICT_ATTEMPTS) throw error;
      }
    }
  }
  return true;
}
