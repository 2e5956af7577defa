/*
 * Data model of context records in the single table (see table.ts for the key attributes):
 *
 *   item                      pk            sk    gsi1 byTenant          gsi2 byOwner            gsi3 documentsByTenant  gsi4 unsettled
 *   document or chunk record  ctx#<id>      ctx   ctx#<tenant>           ctx#owner#<user_id>     (documents only)        ctx#unsettled
 *                                                 <createdAt>#<id>       <createdAt>#<id>        ctx#<tenant>, same sk   <updatedAt>#<id>
 *   tenant generation         ctx#generation#<tenant>  generation  (in no index: `tenant`, `generation`, a counter,
 *                                                                     `epoch`, random, written when it is created)
 *
 * - One item per record, addressed by id alone (search reads hits by id in one BatchGet). Record fields are stored as
 *   they are; a chunk's `content` equals its `text` and is stored once.
 * - byTenant/byOwner/documentsByTenant are read newest first (ScanIndexForward false). The documents index is sparse:
 *   only document records carry gsi3 keys, so view/docs and delete-by-document never page through chunks.
 *   documentNamesByTenant has the same keys and entries, projecting only NamedDocument's attributes: delete by
 *   document pages through it (a quarter of the bytes of the whole rows) until it can use documentsBySource and
 *   documentsByFileName (gsi6, gsi7: tenant and a hash of the name, on document rows only; document-names.ts).
 * - unsettled is sparse too: an item carries gsi4 keys exactly while its status is not `indexed`. Transitions set or
 *   remove them in the same conditional update that changes the status, so the cleanup's work list is exact.
 *   Transitions go 25 at a time as conditional PartiQL updates (BatchExecuteStatement), see context-transitions.ts.
 *   (One partition: unsettled records are few and short-lived; shard it if that ever stops being true.)
 * - Cursors are DynamoDB's LastEvaluatedKey, base64url JSON, opaque to callers and checked when they come back:
 *   only a key of the index and partition being listed is accepted (cursor.ts).
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  type DynamoDBDocumentClient,
  QueryCommand,
  type QueryCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import type {
  Clock,
  ContextRecord,
  ContextRepository,
  ListingPage,
  NamedDocument,
  Page,
  SearchRecord,
} from '@memgate/core';
import { batchGet, batchPutAttributes, batchWrite } from './batch.ts';
import { unlistChild } from './context-children.ts';
import { createAbsent } from './context-creation.ts';
import { bumpGenerations, ensureGenerations, getManyWithGenerations, readGenerations } from './context-generations.ts';
import {
  fromItem,
  isUnsettled,
  namedDocumentOf,
  ownerPartition,
  recordKey,
  SEARCH_PROJECTION,
  tenantPartition,
  toItem,
  UNSETTLED_PARTITION,
  unsettledKey,
} from './context-items.ts';
import { deleteChildrenWhile, deleteWhereStatus, deleteWhereUnchanged } from './context-removal.ts';
import { FINGERPRINT, type TransitionMove, transitionInBatches } from './context-transitions.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import { documentNamesIndexed, queryDocumentsNamed } from './document-names.ts';
import { itemAttributes } from './item-attributes.ts';
import { type IndexName, TABLE_KEYS } from './table.ts';

const { indexes } = TABLE_KEYS;
/** Conditional updates in flight at once for one transition call. */
const TRANSITION_CONCURRENCY = 16;

export interface DynamoContextRepositoryOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
  clock: Clock;
}

/** ContextRepository over one DynamoDB table (data model above). */
export function createDynamoContextRepository({
  client,
  tableName,
  clock,
}: DynamoContextRepositoryOptions): ContextRepository {
  /**
   * Pages through one partition of one index until `limit` items are collected (a Query also stops at 1 MB).
   * The key condition is built here, so the partition a cursor must belong to is the one queried.
   */
  async function queryPage<T = ContextRecord>(
    index: IndexName,
    partition: string,
    input: Omit<
      QueryCommandInput,
      'TableName' | 'IndexName' | 'KeyConditionExpression' | 'Limit' | 'ExclusiveStartKey'
    > & {
      sortCondition?: string;
    },
    cursor: string | undefined,
    limit: number,
    read: (item: Record<string, unknown>) => T = fromItem as (item: Record<string, unknown>) => T,
  ): Promise<ListingPage<T>> {
    const keys = indexes[index];
    const { sortCondition, ExpressionAttributeNames, ExpressionAttributeValues, ...rest } = input;
    const query = {
      ...rest,
      TableName: tableName,
      IndexName: index,
      KeyConditionExpression: `#pk = :pk${sortCondition ? ` AND ${sortCondition}` : ''}`,
      ExpressionAttributeNames: { ...ExpressionAttributeNames, '#pk': keys.partition },
      ExpressionAttributeValues: { ...ExpressionAttributeValues, ':pk': partition },
    };
    const items: T[] = [];
    const rows: Record<string, unknown>[] = [];
    let start = decodeCursor(cursor, { index: keys, partition });
    do {
      const result = await client.send(
        new QueryCommand({ ...query, Limit: limit - items.length, ExclusiveStartKey: start }),
      );
      for (const item of result.Items ?? []) {
        items.push(read(item));
        rows.push(item);
      }
      start = result.LastEvaluatedKey;
    } while (start && items.length < limit);
    // A Query's LastEvaluatedKey on an index is the last item's table and index keys: the same, built from any item.
    const cursorAfter = (index: number) => {
      const row = rows[index] as Record<string, unknown>;
      const pick = [TABLE_KEYS.partition, TABLE_KEYS.sort, keys.partition, keys.sort];
      return encodeCursor(Object.fromEntries(pick.map((name) => [name, row[name]]))) as string;
    };
    return { items, nextCursor: encodeCursor(start), cursorAfter };
  }

  function listNewestFirst(
    index: 'byTenant' | 'byOwner' | 'documentsByTenant',
    partition: string,
    cursor: string | undefined,
    limit: number,
  ): Promise<ListingPage<ContextRecord>> {
    return queryPage(index, partition, { ScanIndexForward: false }, cursor, limit);
  }

  /** One conditional update: moves the record only from an allowed status; false when it was not there. */
  async function transitionOne(id: string, { from, to, fingerprints }: TransitionMove): Promise<boolean> {
    const now = clock.now().toISOString();
    const fromValues = Object.fromEntries(from.map((status, i) => [`:from${i}`, status]));
    const settles = !isUnsettled(to);
    const fingerprint = fingerprints?.get(id);
    const set = settles
      ? 'SET #status = :to, #indexed = :indexed, #updatedAt = :now REMOVE #upk, #usk'
      : 'SET #status = :to, #indexed = :indexed, #updatedAt = :now, #upk = :upk, #usk = :usk';
    try {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key: recordKey(id),
          ConditionExpression: `attribute_exists(pk) AND #status IN (${Object.keys(fromValues).join(', ')})${
            fingerprint === undefined ? '' : ' AND #fingerprint = :fingerprint'
          }`,
          // The fingerprint goes with any move but an add's settle of its own claim (ContextRepository.transition).
          UpdateExpression:
            fingerprint !== undefined ? set : settles ? `${set}, #fingerprint` : `${set} REMOVE #fingerprint`,
          ExpressionAttributeNames: {
            '#status': 'status',
            '#indexed': 'indexed',
            '#updatedAt': 'updatedAt',
            '#upk': indexes.unsettled.partition,
            '#usk': indexes.unsettled.sort,
            '#fingerprint': FINGERPRINT,
          },
          ExpressionAttributeValues: {
            ...fromValues,
            ':to': to,
            ':indexed': to === 'indexed',
            ':now': now,
            ...(settles ? {} : { ':upk': UNSETTLED_PARTITION, ':usk': unsettledKey(now, id) }),
            ...(fingerprint === undefined ? {} : { ':fingerprint': fingerprint }),
          },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  /** Set once the backfill's marker is read: it is never removed, so one process reads it until it exists. */
  let namesIndexed = false;

  async function getMany(ids: readonly string[]): Promise<ContextRecord[]> {
    const unique = [...new Set(ids)];
    if (unique.length === 0) return [];
    const items = await batchGet(client, tableName, unique.map(recordKey), { ConsistentRead: true });
    const byId = new Map(items.map((item) => [item._id as string, fromItem(item)]));
    // Callers get records in the order they asked for them.
    return unique.flatMap((id) => (byId.has(id) ? [byId.get(id) as ContextRecord] : []));
  }

  return {
    async putMany(records) {
      // Duplicate keys in one BatchWrite are refused: the last version of a record wins.
      const latest = new Map(records.map((record) => [record._id, record]));
      await batchPutAttributes(client, tableName, [...latest.values()], (record) => itemAttributes(toItem(record)));
    },

    createMany(records) {
      return createAbsent(client, tableName, records);
    },

    getMany,

    async get(id) {
      const [record] = await getMany([id]);
      return record;
    },

    async getForSearch(ids) {
      const unique = [...new Set(ids)];
      if (unique.length === 0) return [];
      // Still strongly consistent: a record hidden a moment ago (delete, re-add) must not be shown (DESIGN.md 3).
      const items = await batchGet(client, tableName, unique.map(recordKey), {
        ConsistentRead: true,
        ...SEARCH_PROJECTION,
      });
      return items as unknown as SearchRecord[];
    },

    async transition(ids, from, to, fingerprints) {
      const unique = [...new Set(ids)];
      if (unique.length === 0 || from.length === 0) return [];
      const now = clock.now().toISOString();
      const move = { from, to, fingerprints };
      const { moved, retry } = await transitionInBatches(client, tableName, unique, move, now);
      // Statements that failed for another reason than the condition (throttling, a conflict) go one by one.
      let next = 0;
      const worker = async () => {
        while (next < retry.length) {
          const id = retry[next++] as string;
          if (await transitionOne(id, move)) moved.add(id);
        }
      };
      await Promise.all(Array.from({ length: Math.min(TRANSITION_CONCURRENCY, retry.length) }, worker));
      return unique.filter((id) => moved.has(id));
    },

    async deleteMany(ids) {
      const unique = [...new Set(ids)];
      await batchWrite(
        client,
        tableName,
        unique.map((id) => ({ DeleteRequest: { Key: recordKey(id) } })),
      );
    },

    deleteWhere(ids, status) {
      return deleteWhereStatus(client, tableName, ids, status);
    },

    deleteUnchanged(rows) {
      return deleteWhereUnchanged(client, tableName, rows);
    },

    deleteChildrenWhile(guardId, ids, status) {
      return deleteChildrenWhile(client, tableName, guardId, ids, status);
    },

    unlistChild(documentId, childId) {
      return unlistChild(client, tableName, () => clock.now().toISOString(), documentId, childId);
    },

    listByTenant(tenant, { documentsOnly = false, cursor, limit }) {
      return listNewestFirst(documentsOnly ? 'documentsByTenant' : 'byTenant', tenantPartition(tenant), cursor, limit);
    },

    listDocumentNames(tenant, { cursor, limit }): Promise<Page<NamedDocument>> {
      const partition = tenantPartition(tenant);
      return queryPage('documentNamesByTenant', partition, { ScanIndexForward: false }, cursor, limit, namedDocumentOf);
    },

    async findDocumentsNamed(tenant, name) {
      if (!namesIndexed) namesIndexed = await documentNamesIndexed(client, tableName);
      return namesIndexed ? queryDocumentsNamed(client, tableName, tenant, name) : undefined;
    },

    async listByOwner(userId, { documentsOnly = false, cursor, limit }) {
      if (!documentsOnly) return listNewestFirst('byOwner', ownerPartition(userId), cursor, limit);
      // No documents-by-owner index: filter the owner's partition (the cursor still advances over chunks).
      return queryPage(
        'byOwner',
        ownerPartition(userId),
        {
          FilterExpression: '#kind = :document',
          ExpressionAttributeNames: { '#kind': 'kind' },
          ExpressionAttributeValues: { ':document': 'document' },
          ScanIndexForward: false,
        },
        cursor,
        limit,
      );
    },

    listUnsettled({ before, cursor, limit }) {
      return queryPage(
        'unsettled',
        UNSETTLED_PARTITION,
        {
          sortCondition: '#sk < :before',
          ExpressionAttributeNames: { '#sk': indexes.unsettled.sort },
          ExpressionAttributeValues: { ':before': before },
          ScanIndexForward: true,
        },
        cursor,
        limit,
      );
    },

    readGenerations(tenants) {
      return readGenerations(client, tableName, tenants);
    },

    bumpGenerations(tenants) {
      return bumpGenerations(client, tableName, tenants);
    },

    ensureGenerations(tenants) {
      return ensureGenerations(client, tableName, tenants);
    },

    getManyWithGenerations(ids, tenants) {
      return getManyWithGenerations(client, tableName, ids, tenants);
    },

    async countAttempt(id) {
      try {
        const result = await client.send(
          new UpdateCommand({
            TableName: tableName,
            Key: recordKey(id),
            ConditionExpression: 'attribute_exists(pk)',
            UpdateExpression: 'ADD attempts :one',
            ExpressionAttributeValues: { ':one': 1 },
            ReturnValues: 'UPDATED_NEW',
          }),
        );
        return Number(result.Attributes?.attempts ?? 0);
      } catch (error) {
        if (error instanceof ConditionalCheckFailedException) return 0;
        throw error;
      }
    },
  };
}
