import { BatchWriteCommand, type BatchWriteCommandInput, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { groupsOf } from '@memgate/adapters/dynamodb/batch';
import { toItem } from '@memgate/adapters/dynamodb/context-items';
import type { DocumentInput } from '@memgate/core';
import { type BuiltDocument, buildDocument } from '@memgate/core/context/store/records';

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

/**
 * The records an add of these documents writes for `owner` (a document row and its chunk rows each), built by the
 * store's own record code.
 */
export function recordsOf(documents: readonly DocumentInput[], owner: string): BuiltDocument[] {
  const ctx = {
    ownerId: owner,
    organizationId: null,
    tenant: `user:${owner}`,
    source: 'bench',
    contextType: 'resource',
    scope: 'internal',
    metadata: {},
    modalities: ['text'],
    tags: [],
    now: new Date().toISOString(),
  } as const;
  return documents.map((input) => buildDocument(input, { ...ctx, modalities: [...ctx.modalities], tags: [] }));
}

/**
 * The exact DynamoDB items an add of these documents writes for `owner` (document and chunk rows, with every index
 * key), built by the store's own record and item code, so the raw ceiling is measured on the same items.
 */
export function itemsOf(documents: readonly DocumentInput[], owner: string): Record<string, unknown>[] {
  return recordsOf(documents, owner).flatMap((built) => [toItem(built.document), ...built.chunks.map(toItem)]);
}

/**
 * DynamoDB Local's raw BatchWrite rate: `writers` concurrent loops, each sending BatchWrite requests of 25 puts
 * (DynamoDB's maximum; unprocessed items retried) into `tableName`. Items per second.
 */
export async function rawBatchWriteRate({
  client,
  tableName,
  items,
  writers,
}: {
  client: DynamoDBDocumentClient;
  tableName: string;
  items: readonly Record<string, unknown>[];
  writers: number;
}): Promise<{ itemsPerSecond: number; seconds: number; items: number }> {
  const groups = groupsOf(items, 25).map((group) => group.map((Item): WriteRequest => ({ PutRequest: { Item } })));
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: writers }, async () => {
      while (next < groups.length) {
        let pending = groups[next++] as WriteRequest[];
        while (pending.length > 0) {
          const result = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: pending } }));
          pending = (result.UnprocessedItems?.[tableName] ?? []) as WriteRequest[];
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  return { itemsPerSecond: items.length / seconds, seconds, items: items.length };
}
