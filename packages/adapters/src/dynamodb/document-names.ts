/*
 * Delete by document finds a tenant's documents by source or file name through documentsBySource and
 * documentsByFileName (table.ts), whose keys every document row written by this version carries (toItem). Rows
 * written before lack them, so those indexes answer only once a backfill has given every document row its name keys
 * and written a marker item; until then the repository says it cannot answer by name and the delete pages through the
 * tenant's slim listing instead (correct, but it grows with the tenant). The backfill runs in ensureTable (local) and
 * in the scheduled cleanup (AWS), in pages, resumable and idempotent. docs/ARCHITECTURE.md says what it guarantees.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  ScanCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type { NamedDocument, TenantKey } from '@memgate/core';
import { nameAttributes, namedDocumentOf, namePartition, newestKey } from './context-items.ts';
import { TABLE_KEYS } from './table.ts';

const { indexes } = TABLE_KEYS;
/** The backfill's progress and, once `done`, the marker: no index attributes, so no listing ever sees it. */
const PROGRESS_KEY = { pk: 'ctx#document-names', sk: 'backfill' } as const;
const PAGE = 500;
const CONCURRENCY = 16;

interface Progress {
  done?: boolean;
  /** When the backfill first ran (ISO): this version was deployed by then. */
  firstRunAt: string;
  /** When the current pass began (ISO); absent between passes. */
  passStartedAt?: string;
  /** Where the current pass stopped (a Scan's LastEvaluatedKey). */
  cursor?: Record<string, unknown>;
}

/** Whether the marker exists: every document row has its name keys (eventually consistent: a stale "no" costs reads). */
export async function documentNamesIndexed(client: DynamoDBDocumentClient, tableName: string): Promise<boolean> {
  const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: PROGRESS_KEY }));
  return Item?.done === true;
}

async function queryAll(client: DynamoDBDocumentClient, tableName: string, index: keyof typeof indexes, key: string) {
  const found: NamedDocument[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const result = await client.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: index,
        KeyConditionExpression: '#pk = :pk',
        ExpressionAttributeNames: { '#pk': indexes[index].partition },
        ExpressionAttributeValues: { ':pk': key },
        ExclusiveStartKey: start,
      }),
    );
    for (const item of result.Items ?? []) found.push(namedDocumentOf(item));
    start = result.LastEvaluatedKey;
  } while (start);
  return found;
}

/** The tenant's documents whose source or file name is `name` (both indexes, each document once). */
export async function queryDocumentsNamed(
  client: DynamoDBDocumentClient,
  tableName: string,
  tenant: TenantKey,
  name: string,
): Promise<NamedDocument[]> {
  const key = namePartition(tenant, name);
  const [bySource, byFileName] = await Promise.all([
    queryAll(client, tableName, 'documentsBySource', key),
    queryAll(client, tableName, 'documentsByFileName', key),
  ]);
  const named = new Map<string, NamedDocument>();
  for (const document of bySource) if (document.source === name) named.set(document._id, document);
  for (const document of byFileName) if (document.metadata.file_name === name) named.set(document._id, document);
  return [...named.values()];
}

/** What one backfill call did: rows given their name keys, and whether the marker is (now) written. */
export interface NamesBackfill {
  updated: number;
  done: boolean;
}

/** Gives one scanned document row its name keys, only if it is still the row that was read (never recreates one). */
async function addNameKeys(client: DynamoDBDocumentClient, tableName: string, row: Record<string, unknown>) {
  const metadata = (row.metadata ?? {}) as { file_name?: unknown };
  const order = newestKey({ createdAt: row.createdAt as string, _id: row._id as string });
  const keys = nameAttributes(row.tenant as TenantKey, row.source, metadata.file_name, order);
  const names = Object.keys(keys) as (keyof typeof keys)[];
  try {
    await client.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: row.pk, sk: row.sk },
        // The names and order hashed are the row's as it is now: a row rewritten or deleted since the scan is left.
        ConditionExpression:
          'attribute_exists(pk) AND attribute_not_exists(#k0) AND #source = :source AND #createdAt = :createdAt' +
          (metadata.file_name === undefined
            ? ' AND attribute_not_exists(#metadata.#fileName)'
            : ' AND #metadata.#fileName = :fileName'),
        UpdateExpression: `SET ${names.map((_, i) => `#k${i} = :k${i}`).join(', ')}`,
        ExpressionAttributeNames: {
          ...Object.fromEntries(names.map((name, i) => [`#k${i}`, name])),
          '#source': 'source',
          '#createdAt': 'createdAt',
          '#metadata': 'metadata',
          '#fileName': 'file_name',
        },
        ExpressionAttributeValues: {
          ...Object.fromEntries(names.map((name, i) => [`:k${i}`, keys[name]])),
          ':source': row.source,
          ':createdAt': row.createdAt,
          ...(metadata.file_name === undefined ? {} : { ':fileName': metadata.file_name }),
        },
      }),
    );
    return true;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return false;
    throw error;
  }
}

/**
 * Gives document rows without name keys their keys, a page at a time, until `until` or the marker is written.
 * A pass scans the whole table; the marker is written at the end of a pass that began at least `settleMs` after the
 * backfill first ran, so that rows written by the previous version while it was still serving (a deploy's last
 * in-flight requests) are in that pass. The first pass starts at once and does most of the work. Safe to run
 * concurrently and again: each update is conditional, and the progress item only ever names a pass's own cursor.
 */
export async function backfillDocumentNames(
  client: DynamoDBDocumentClient,
  tableName: string,
  { now, until, settleMs }: { now: () => Date; until?: Date; settleMs: number },
): Promise<NamesBackfill> {
  const result: NamesBackfill = { updated: 0, done: false };
  const read = await client.send(new GetCommand({ TableName: tableName, Key: PROGRESS_KEY, ConsistentRead: true }));
  let progress = (read.Item as Progress | undefined) ?? { firstRunAt: now().toISOString() };
  if (progress.done) return { ...result, done: true };
  const save = (next: Progress) =>
    client.send(new PutCommand({ TableName: tableName, Item: { ...PROGRESS_KEY, ...next } }));
  const settledAt = Date.parse(progress.firstRunAt) + settleMs;

  while (until === undefined || now().getTime() < until.getTime()) {
    if (progress.passStartedAt === undefined) {
      // Between passes: the next one starts when its rows are surely all written by this version or older.
      if (read.Item !== undefined && now().getTime() < settledAt) break;
      progress = { firstRunAt: progress.firstRunAt, passStartedAt: now().toISOString() };
    }
    const page = await client.send(
      new ScanCommand({
        TableName: tableName,
        Limit: PAGE,
        ExclusiveStartKey: progress.cursor,
        FilterExpression: 'attribute_exists(#documents) AND attribute_not_exists(#bySource)',
        ProjectionExpression: 'pk, sk, #id, #tenant, #source, #metadata, #createdAt',
        ExpressionAttributeNames: {
          '#documents': indexes.documentsByTenant.partition,
          '#bySource': indexes.documentsBySource.partition,
          '#id': '_id',
          '#tenant': 'tenant',
          '#source': 'source',
          '#metadata': 'metadata',
          '#createdAt': 'createdAt',
        },
      }),
    );
    const rows = page.Items ?? [];
    for (let i = 0; i < rows.length; i += CONCURRENCY) {
      const moved = await Promise.all(rows.slice(i, i + CONCURRENCY).map((row) => addNameKeys(client, tableName, row)));
      result.updated += moved.filter(Boolean).length;
    }
    if (page.LastEvaluatedKey) {
      progress = { ...progress, cursor: page.LastEvaluatedKey };
    } else if (Date.parse(progress.passStartedAt as string) >= settledAt) {
      await save({ firstRunAt: progress.firstRunAt, done: true });
      return { ...result, done: true };
    } else {
      progress = { firstRunAt: progress.firstRunAt };
      if (now().getTime() < settledAt) {
        await save(progress);
        return result;
      }
    }
    await save(progress);
  }
  await save(progress);
  return result;
}
