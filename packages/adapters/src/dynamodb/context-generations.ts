import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { TenantKey } from '@memgate/core';
import { batchGet } from './batch.ts';
import { generationKey } from './context-items.ts';

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
