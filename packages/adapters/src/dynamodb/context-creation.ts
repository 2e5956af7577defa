import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { BatchExecuteStatementCommand, type DynamoDBDocumentClient, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { ContextRecord } from '@memgate/core';
import { groupsOf, WRITE_BATCH } from './batch.ts';
import { toItem } from './context-items.ts';

const CONCURRENCY = 8;

/** PartiQL's answer to an INSERT whose key exists (`DuplicateItemException` as a statement's error code). */
const EXISTS = new Set(['DuplicateItem', 'ConditionalCheckFailed']);

/** `INSERT INTO "table" VALUE {'name': ?, ...}` for this item's attributes, in `Object.keys` order. */
function insertOf(tableName: string, item: Record<string, unknown>) {
  const names = Object.keys(item).filter((name) => item[name] !== undefined);
  // Attribute names are PartiQL string literals: a quote inside one is doubled.
  const tuple = names.map((name) => `'${name.replaceAll("'", "''")}': ?`).join(', ');
  return { Statement: `INSERT INTO "${tableName}" VALUE {${tuple}}`, Parameters: names.map((name) => item[name]) };
}

/** The conditional PutItem of one record: the fallback for a statement that failed for another reason. */
async function putIfAbsent(client: DynamoDBDocumentClient, tableName: string, record: ContextRecord) {
  try {
    await client.send(
      new PutCommand({ TableName: tableName, Item: toItem(record), ConditionExpression: 'attribute_not_exists(pk)' }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/**
 * Creates records that do not exist yet (ContextRepository.createMany): PartiQL INSERTs, 25 per BatchExecuteStatement.
 * An INSERT writes only where the key is absent, like a PutItem conditional on `attribute_not_exists`, and is billed
 * like one; each statement of a batch succeeds or fails on its own, so one existing record does not stop the others
 * (a transaction would, at twice the write units). A statement that failed for another reason (throttling, a
 * conflict) is tried again as a conditional PutItem. Returns the ids that already existed, left as they were.
 */
export async function createAbsent(
  client: DynamoDBDocumentClient,
  tableName: string,
  records: readonly ContextRecord[],
): Promise<string[]> {
  // One key twice in a batch is refused: the last version of a record wins.
  const latest = [...new Map(records.map((record) => [record._id, record])).values()];
  const existing = new Set<string>();
  const retry: ContextRecord[] = [];
  const groups = groupsOf(latest, WRITE_BATCH);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < groups.length) {
      const group = groups[next++] as ContextRecord[];
      const result = await client.send(
        new BatchExecuteStatementCommand({
          Statements: group.map((record) => insertOf(tableName, toItem(record))),
        }),
      );
      group.forEach((record, i) => {
        const code = result.Responses?.[i]?.Error?.Code;
        if (code === undefined && result.Responses?.[i]) return;
        if (code !== undefined && EXISTS.has(code)) existing.add(record._id);
        else retry.push(record);
      });
    }
  }
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, groups.length) }, worker));
  for (const record of retry) {
    if (!(await putIfAbsent(client, tableName, record))) existing.add(record._id);
  }
  return latest.filter((record) => existing.has(record._id)).map((record) => record._id);
}
