import { randomBytes } from 'node:crypto';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ContextRecord, GenerationTag, TenantKey } from '@memgate/core';
import { batchGet } from './batch.ts';
import { fromItem, generationKey, recordKey } from './context-items.ts';

/** The counter attribute of a generation item, and its epoch: random, written once when the item is created. */
const GENERATION = 'generation';
const EPOCH = 'epoch';

/**
 * A generation item as a tag: its epoch and its counter. An item without an epoch (written before epochs, or not
 * at all) has no tag, so it vouches for nothing until a bump or an ensure gives it one.
 */
export function tagOfItem(item: Record<string, unknown>): GenerationTag | undefined {
  const epoch = item[EPOCH];
  return typeof epoch === 'string' ? `${epoch}:${Number(item[GENERATION] ?? 0)}` : undefined;
}

/** A new epoch: a table wiped and written again never gives a tenant a tag it had before. */
const newEpoch = () => randomBytes(8).toString('hex');

/**
 * The visibility generation tags of `tenants` (ContextRepository.readGenerations): strongly consistent reads of small
 * items (a read unit each). One tenant (a search's common case) is a GetItem: the same read, with less request and
 * response handling in the SDK and in DynamoDB than a BatchGetItem. A tenant without a tagged item is absent.
 * Whole items, not projected: a generation item holds only its keys, tenant, epoch and counter, a read unit either
 * way, and DynamoDB Local answers the projected GetItem more slowly (bench/tag-read.ts; bench/OVER-BUDGET.md,
 * "Search p50", session 11).
 */
export async function readGenerations(
  client: DynamoDBDocumentClient,
  tableName: string,
  tenants: readonly TenantKey[],
): Promise<Map<TenantKey, GenerationTag>> {
  const unique = [...new Set(tenants)];
  const tags = new Map<TenantKey, GenerationTag>();
  if (unique.length === 0) return tags;
  const items =
    unique.length === 1
      ? await getOne(client, tableName, unique[0] as TenantKey)
      : await batchGet(client, tableName, unique.map(generationKey), { ConsistentRead: true });
  for (const item of items) {
    const tag = tagOfItem(item);
    if (tag !== undefined) tags.set(item.tenant as TenantKey, tag);
  }
  return tags;
}

async function getOne(client: DynamoDBDocumentClient, tableName: string, tenant: TenantKey) {
  const { Item } = await client.send(
    new GetCommand({ TableName: tableName, Key: generationKey(tenant), ConsistentRead: true }),
  );
  return Item === undefined ? [] : [Item];
}

/**
 * An UpdateItem per tenant that adds `by` to its counter and gives it an epoch if it has none (creating the item),
 * returning the tags after it: atomic, so a concurrent bump or create is never lost.
 */
async function updateGenerations(
  client: DynamoDBDocumentClient,
  tableName: string,
  tenants: readonly TenantKey[],
  by: 0 | 1,
): Promise<Map<TenantKey, GenerationTag>> {
  const unique = [...new Set(tenants)];
  const tags = await Promise.all(
    unique.map(async (tenant) => {
      const { Attributes } = await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: generationKey(tenant),
          UpdateExpression: 'SET #tenant = :tenant, #epoch = if_not_exists(#epoch, :epoch) ADD #generation :by',
          ExpressionAttributeNames: { '#tenant': 'tenant', '#generation': GENERATION, '#epoch': EPOCH },
          ExpressionAttributeValues: { ':tenant': tenant, ':by': by, ':epoch': newEpoch() },
          ReturnValues: 'ALL_NEW',
        }),
      );
      return [tenant, tagOfItem(Attributes ?? {}) as GenerationTag] as const;
    }),
  );
  return new Map(tags);
}

/** ContextRepository.ensureGenerations: the tags, creating the items of tenants that have none (counter 0). */
export function ensureGenerations(client: DynamoDBDocumentClient, tableName: string, tenants: readonly TenantKey[]) {
  return updateGenerations(client, tableName, tenants, 0);
}

/** ContextRepository.bumpGenerations: one more on each tenant's counter, creating the item (with an epoch) at 1. */
export async function bumpGenerations(
  client: DynamoDBDocumentClient,
  tableName: string,
  tenants: readonly TenantKey[],
): Promise<void> {
  await updateGenerations(client, tableName, tenants, 1);
}

/**
 * Records and the tags of `tenants` in one strongly consistent BatchGetItem (ContextRepository.getManyWithGenerations):
 * an item with an `_id` is a record, the others are generations. Records come in the order asked for.
 */
export async function getManyWithGenerations(
  client: DynamoDBDocumentClient,
  tableName: string,
  ids: readonly string[],
  tenants: readonly TenantKey[],
): Promise<{ records: ContextRecord[]; generations: Map<TenantKey, GenerationTag> }> {
  const unique = [...new Set(ids)];
  const generations = new Map<TenantKey, GenerationTag>();
  const keys = [...unique.map(recordKey), ...[...new Set(tenants)].map(generationKey)];
  if (keys.length === 0) return { records: [], generations };
  const byId = new Map<string, ContextRecord>();
  for (const item of await batchGet(client, tableName, keys, { ConsistentRead: true })) {
    if (typeof item._id === 'string') byId.set(item._id, fromItem(item));
    else {
      const tag = tagOfItem(item);
      if (tag !== undefined) generations.set(item.tenant as TenantKey, tag);
    }
  }
  return { records: unique.flatMap((id) => (byId.has(id) ? [byId.get(id) as ContextRecord] : [])), generations };
}
