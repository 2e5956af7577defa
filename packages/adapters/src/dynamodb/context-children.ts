import { setTimeout as sleep } from 'node:timers/promises';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { recordKey } from './context-items.ts';
import { FINGERPRINT } from './context-transitions.ts';

/**
 * Tries of ContextRepository.unlistChild beyond the list's length. A try fails only when another write changed the
 * list or the status between its read and its update: another unlist (an entry left the list, so a list of n entries
 * lets at most n - 1 of those fail a try), or a re-add of the document (its list replaced, then `indexed` again: a
 * whole add per failed try, rare). So n + this many tries are not used up in practice: 48 deletes of one document's 60
 * chunks at once on DynamoDB Local took at most 10-11 tries (test/context/lone-chunk-contention.test.ts); a fixed 8
 * failed 6 of them with a 500.
 */
const EXTRA_ATTEMPTS = 8;

/** Jittered backoff between tries (full jitter, up to this ceiling), so concurrent unlists stop colliding. */
const BACKOFF_BASE_MS = 4;
const BACKOFF_CEILING_MS = 100;

const NAMES = {
  '#status': 'status',
  '#children': 'children_context_nodes',
  '#updatedAt': 'updatedAt',
  '#fingerprint': FINGERPRINT,
};

/**
 * ContextRepository.unlistChild: reads the document's list (strongly consistent), then removes the entry at the
 * position it was read at, on condition that the document is still `indexed` and that position still holds the
 * child. A list changed meanwhile fails the condition and is read again; nothing else of the row is written.
 */
export async function unlistChild(
  client: DynamoDBDocumentClient,
  tableName: string,
  now: () => string,
  documentId: string,
  childId: string,
): Promise<boolean> {
  const Key = recordKey(documentId);
  let attempts = 1;
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (attempt > 0) await sleep(Math.random() * Math.min(BACKOFF_CEILING_MS, BACKOFF_BASE_MS * 2 ** attempt));
    const { Item } = await client.send(
      new GetCommand({
        TableName: tableName,
        Key,
        ConsistentRead: true,
        ProjectionExpression: '#status, #children',
        ExpressionAttributeNames: { '#status': NAMES['#status'], '#children': NAMES['#children'] },
      }),
    );
    const children = Item?.children_context_nodes as string[] | undefined;
    const position = children?.indexOf(childId) ?? -1;
    if (Item?.status !== 'indexed' || position < 0) return false;
    if (attempt === 0) attempts = (children?.length ?? 0) + EXTRA_ATTEMPTS;
    try {
      await client.send(
        new UpdateCommand({
          TableName: tableName,
          Key,
          ConditionExpression: `#status = :indexed AND #children[${position}] = :child`,
          UpdateExpression: `REMOVE #children[${position}], #fingerprint SET #updatedAt = :now`,
          ExpressionAttributeNames: NAMES,
          ExpressionAttributeValues: { ':indexed': 'indexed', ':child': childId, ':now': now() },
        }),
      );
      return true;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
  // Only reached if something appended to the list of an indexed document, which nothing does.
  throw new Error(`document ${documentId} changed at each of ${attempts} tries to unlist one of its chunks`);
}
