/*
 * Chat sessions and replays in the single table (see table.ts):
 *
 *   item     pk                  sk        gsi5 byExpiry
 *   session  chat#<chatId>       session   chat#expiring  <expiresAt ISO>#chat#<chatId>
 *   replay   replay#<replayId>   replay    chat#expiring  <expiresAt ISO>#replay#<replayId>
 *
 * - A session holds its messages as a list (one read, one write, and DynamoDB's TTL removes everything at once);
 *   the oldest messages are dropped when the list would outgrow the item size limit (session-items.ts).
 * - `expiresAt` is the TTL attribute (epoch seconds); reads also check the ISO copy, since TTL deletes lag.
 * - The cleanup's ids are the items' pk values; `delete` derives the sort key from the prefix.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { ChatReplay, ChatSession, Page, SessionRepository } from '@memgate/core';
import { batchWrite } from './batch.ts';
import { decodeCursor, encodeCursor } from './cursor.ts';
import {
  EXPIRING_PARTITION,
  isLive,
  REPLAY_SORT,
  replayFromItem,
  replayKey,
  replayToItem,
  SESSION_SORT,
  sessionFromItem,
  sessionKey,
  sessionToItem,
} from './session-items.ts';
import { TABLE_KEYS } from './table.ts';

const { byExpiry } = TABLE_KEYS.indexes;

export interface DynamoSessionRepositoryOptions {
  client: DynamoDBDocumentClient;
  tableName: string;
}

/** SessionRepository over the single table (data model above). */
export function createDynamoSessionRepository({
  client,
  tableName,
}: DynamoSessionRepositoryOptions): SessionRepository {
  async function getItem(key: Record<string, string>): Promise<Record<string, unknown> | undefined> {
    const { Item } = await client.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
    return Item;
  }

  async function getSession(chatId: string, now: Date): Promise<ChatSession | null> {
    const item = await getItem(sessionKey(chatId));
    return isLive(item, now) ? sessionFromItem(item) : null;
  }

  async function putSession(session: ChatSession): Promise<boolean> {
    const read = session.version;
    try {
      await client.send(
        new PutCommand({
          TableName: tableName,
          Item: { ...sessionToItem(session), version: (read ?? 0) + 1 },
          // Never written: no item. Read at version 0: an item written before versions (no attribute). Else: equal.
          ...(read === undefined
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : read === 0
              ? { ConditionExpression: 'attribute_not_exists(#v)', ExpressionAttributeNames: { '#v': 'version' } }
              : {
                  ConditionExpression: '#v = :read',
                  ExpressionAttributeNames: { '#v': 'version' },
                  ExpressionAttributeValues: { ':read': read },
                }),
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }

  async function getReplay(replaySessionID: string, now: Date): Promise<ChatReplay | null> {
    const item = await getItem(replayKey(replaySessionID));
    return isLive(item, now) ? replayFromItem(item) : null;
  }

  async function putReplay(replay: ChatReplay): Promise<void> {
    await client.send(new PutCommand({ TableName: tableName, Item: replayToItem(replay) }));
  }

  async function listExpired({
    before,
    cursor,
    limit,
  }: {
    before: string;
    cursor?: string;
    limit: number;
  }): Promise<Page<string>> {
    const startKey = decodeCursor(cursor, { index: byExpiry, partition: EXPIRING_PARTITION });
    const result = await client.send(
      new QueryCommand({
        TableName: tableName,
        IndexName: 'byExpiry',
        KeyConditionExpression: '#p = :p AND #s < :before',
        ExpressionAttributeNames: { '#p': byExpiry.partition, '#s': byExpiry.sort },
        ExpressionAttributeValues: { ':p': EXPIRING_PARTITION, ':before': before },
        Limit: limit,
        ...(startKey ? { ExclusiveStartKey: startKey } : {}),
      }),
    );
    return {
      items: (result.Items ?? []).map((item) => item.pk as string),
      nextCursor: encodeCursor(result.LastEvaluatedKey),
    };
  }

  async function deleteExpired(ids: readonly string[]): Promise<void> {
    const keys = [...new Set(ids)].flatMap((pk) => {
      if (pk.startsWith('chat#')) return [{ pk, sk: SESSION_SORT }];
      if (pk.startsWith('replay#')) return [{ pk, sk: REPLAY_SORT }];
      return [];
    });
    if (keys.length === 0) return;
    await batchWrite(
      client,
      tableName,
      keys.map((Key) => ({ DeleteRequest: { Key } })),
    );
  }

  return { getSession, putSession, getReplay, putReplay, listExpired, delete: deleteExpired };
}
