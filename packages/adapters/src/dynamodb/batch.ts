import {
  type AttributeValue,
  BatchWriteItemCommand,
  type BatchWriteItemCommandOutput,
  type WriteRequest as LowLevelWriteRequest,
} from '@aws-sdk/client-dynamodb';
import {
  BatchGetCommand,
  type BatchGetCommandInput,
  BatchWriteCommand,
  type BatchWriteCommandInput,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';

/** DynamoDB's per-request limits. */
export const WRITE_BATCH = 25;
export const READ_BATCH = 100;
/** Batch requests in flight at once per call: enough to keep DynamoDB busy without a thundering herd. */
const CONCURRENCY = 8;
const MAX_ROUNDS = 12;

type Key = Record<string, unknown>;
type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

export function groupsOf<T>(items: readonly T[], size: number): T[][] {
  const groups: T[][] = [];
  for (let i = 0; i < items.length; i += size) groups.push(items.slice(i, i + size));
  return groups;
}

async function inParallel<T>(items: readonly T[], run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await run(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, items.length) }, worker));
}

/** Exponential backoff with full jitter: unprocessed items mean the table is throttling us. */
function backoff(round: number): Promise<void> {
  const ceiling = Math.min(2000, 25 * 2 ** round);
  return new Promise((resolve) => setTimeout(resolve, Math.random() * ceiling));
}

/** Writes (puts or deletes) in groups of 25, several groups at once, retrying `UnprocessedItems` with backoff. */
export async function batchWrite(
  client: DynamoDBDocumentClient,
  table: string,
  requests: readonly WriteRequest[],
): Promise<void> {
  await writeInGroups(
    requests,
    (group) => group,
    async (pending) => {
      const result = await client.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
      return (result.UnprocessedItems?.[table] ?? []) as WriteRequest[];
    },
  );
}

/**
 * Puts items in DynamoDB's attribute values (item-attributes.ts), as `batchWrite` does, through the same client with
 * the low-level command: the document client's marshalling walk is skipped (rows written in bulk). Each group's
 * items are made just before it is sent, not all at once: the 2,700 rows of a 4 MB add took ~80 ms of CPU in one go,
 * other requests waiting behind it (test/security/freezes.test.ts); made per group, they run between the writes.
 */
export async function batchPutAttributes<R>(
  client: DynamoDBDocumentClient,
  table: string,
  rows: readonly R[],
  attributesOf: (row: R) => Record<string, AttributeValue>,
): Promise<void> {
  await writeInGroups(
    rows,
    (group) => group.map((row): LowLevelWriteRequest => ({ PutRequest: { Item: attributesOf(row) } })),
    async (pending) => {
      const command = new BatchWriteItemCommand({ RequestItems: { [table]: pending } });
      const result = (await client.send(command as never)) as BatchWriteItemCommandOutput;
      return result.UnprocessedItems?.[table] ?? [];
    },
  );
}

/** Writes `inputs` in groups of 25 (`requestsOf` makes a group's requests when it is first sent), several at once. */
async function writeInGroups<I, T>(
  inputs: readonly I[],
  requestsOf: (group: I[]) => T[],
  send: (pending: T[]) => Promise<T[]>,
): Promise<void> {
  await inParallel(groupsOf(inputs, WRITE_BATCH), async function writeGroup(group) {
    let pending: T[] = requestsOf(group);
    for (let round = 0; pending.length > 0; round++) {
      if (round >= MAX_ROUNDS) throw new Error(`DynamoDB left ${pending.length} writes unprocessed after retries`);
      if (round > 0) await backoff(round);
      pending = await send(pending);
    }
  });
}

/** Reads in groups of 100 (options apply to each), retrying `UnprocessedKeys` with backoff. Missing keys are absent. */
export async function batchGet(
  client: DynamoDBDocumentClient,
  table: string,
  keys: readonly Key[],
  options: Pick<
    NonNullable<BatchGetCommandInput['RequestItems']>[string],
    'ConsistentRead' | 'ProjectionExpression' | 'ExpressionAttributeNames'
  > = {},
): Promise<Record<string, unknown>[]> {
  const found: Record<string, unknown>[] = [];
  await inParallel(groupsOf(keys, READ_BATCH), async function readGroup(group) {
    let pending: Key[] = group;
    for (let round = 0; pending.length > 0; round++) {
      if (round >= MAX_ROUNDS) throw new Error(`DynamoDB left ${pending.length} reads unprocessed after retries`);
      if (round > 0) await backoff(round);
      const result = await client.send(
        new BatchGetCommand({ RequestItems: { [table]: { Keys: pending, ...options } } }),
      );
      found.push(...((result.Responses?.[table] ?? []) as Record<string, unknown>[]));
      pending = (result.UnprocessedKeys?.[table]?.Keys ?? []) as Key[];
    }
  });
  return found;
}
