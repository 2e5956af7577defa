import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { type DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { recordKey } from './context-items.ts';
import { FINGERPRINT } from './context-transitions.ts';

/**
 * Tries of ContextRepository.unlistChild: each failed one means another write changed the list or the document
 * meanwhile (a delete of another of its chunks, most often), so this many are only used up under a flood of them.
 */
const UNLIST_ATTEMPTS = 8;

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
  for (let attempt = 0; attempt < UNLIST_ATTEMPTS; attempt++) {
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
  throw new Error(`document ${documentId} changed at each of ${UNLIST_ATTEMPTS} tries to unlist one of its chunks`);
}
