import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { SearchRecord, TenantKey } from '@memgate/core';
import { batchGet } from './batch.ts';
import { generationKey, recordKey, SEARCH_PROJECTION } from './context-items.ts';

/** The counter attribute of a generation item. */
const GENERATION = 'generation';

/**
 * The visibility generations of `tenants` (ContextRepository.readGenerations): one strongly consistent BatchGetItem
 * of small items (a read unit each), projected to the counter. A tenant never bumped has no item: generation 0.
 */
export async function readGenerations(
  client: DynamoDBDocumentClient,
  tableName: string,
  tenants: readonly TenantKey[],
): Promise<Map<TenantKey, number>> {
  const unique = [...new Set(tenants)];
  const generations = new Map<TenantKey, number>(unique.map((tenant) => [tenant, 0]));
  if (unique.length === 0) return generations;
  const items = await batchGet(client, tableName, unique.map(generationKey), {
    ConsistentRead: true,
    ProjectionExpression: '#tenant, #generation',
    ExpressionAttributeNames: { '#tenant': 'tenant', '#generation': GENERATION },
  });
  for (const item of items) generations.set(item.tenant as TenantKey, Number(item[GENERATION] ?? 0));
  return generations;
}

/**
 * Search's rows and its tenants' generations in one strongly consistent BatchGetItem
 * (ContextRepository.getForSearchWithGenerations): the projection of search's fields plus the counter; an item with
 * an `_id` is a record, the others are generations.
 */
export async function getForSearchWithGenerations(
  client: DynamoDBDocumentClient,
  tableName: string,
  ids: readonly string[],
  tenants: readonly TenantKey[],
): Promise<{ records: SearchRecord[]; generations: Map<TenantKey, number> }> {
  const unique = [...new Set(tenants)];
  const generations = new Map<TenantKey, number>(unique.map((tenant) => [tenant, 0]));
  const keys = [...[...new Set(ids)].map(recordKey), ...unique.map(generationKey)];
  if (keys.length === 0) return { records: [], generations };
  const items = await batchGet(client, tableName, keys, {
    ConsistentRead: true,
    ProjectionExpression: `${SEARCH_PROJECTION.ProjectionExpression}, #generation`,
    ExpressionAttributeNames: { ...SEARCH_PROJECTION.ExpressionAttributeNames, '#generation': GENERATION },
  });
  const records: SearchRecord[] = [];
  for (const item of items) {
    if (typeof item._id === 'string') records.push(item as unknown as SearchRecord);
    else generations.set(item.tenant as TenantKey, Number(item[GENERATION] ?? 0));
  }
  return { records, generations };
}

/**
 * Adds one to each tenant's generation (ContextRepository.bumpGenerations): an UpdateItem `ADD` per tenant, which
 * creates the item at 1 and never loses a concurrent bump.
 */
export async function bumpGenerations(
  client: DynamoDBDocumentClient,
  tableName: string,
  tenants: readonly TenantKey[],
): Promise<void> {
  await Promise.all(
    [...new Set(tenants)].map((tenant) =>
      client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: generationKey(tenant),
          UpdateExpression: 'SET #tenant = :tenant ADD #generation :one',
          ExpressionAttributeNames: { '#tenant': 'tenant', '#generation': GENERATION },
          ExpressionAttributeValues: { ':tenant': tenant, ':one': 1 },
        }),
      ),
    ),
  );
}
