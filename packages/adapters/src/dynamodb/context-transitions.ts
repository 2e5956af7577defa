import { BatchExecuteStatementCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { RecordStatus } from '@memgate/core';
import { groupsOf, WRITE_BATCH } from './batch.ts';
import { isUnsettled, RECORD_SORT_KEY, UNSETTLED_PARTITION, unsettledKey } from './context-items.ts';
import { TABLE_KEYS } from './table.ts';

const { unsettled } = TABLE_KEYS.indexes;
const CONCURRENCY = 8;

/** The attribute holding a document's fingerprint (ContextRecord.fingerprint). */
export const FINGERPRINT = 'fingerprint';

/** One transition: from which statuses to which, and the fingerprints an add settles its claims with. */
export interface TransitionMove {
  from: readonly RecordStatus[];
  to: RecordStatus;
  fingerprints?: ReadonlyMap<string, string> | undefined;
}

/**
 * Conditional status changes, 25 per request (PartiQL BatchExecuteStatement): each statement applies only where the
 * record's status is one of `from`, like a conditional UpdateItem, at a twenty-fifth of the requests. A statement
 * removes the row's fingerprint, or, for an id `fingerprints` gives one, applies only where the row holds it
 * (ContextRepository.transition). Returns the ids that moved, and the ids whose statement failed for another reason
 * (the caller retries those one by one).
 */
export async function transitionInBatches(
  client: DynamoDBDocumentClient,
  tableName: string,
  ids: readonly string[],
  { from, to, fingerprints }: TransitionMove,
  now: string,
): Promise<{ moved: Set<string>; retry: string[] }> {
  const placeholders = from.map(() => '?').join(', ');
  const settles = !isUnsettled(to);
  const set = settles
    ? `SET "status" = ? SET "indexed" = ? SET "updatedAt" = ? REMOVE "${unsettled.partition}" REMOVE "${unsettled.sort}"`
    : `SET "status" = ? SET "indexed" = ? SET "updatedAt" = ? SET "${unsettled.partition}" = ? SET "${unsettled.sort}" = ?`;
  const where = `WHERE "pk" = ? AND "sk" = ? AND "status" IN [${placeholders}]`;
  const forgetting = `UPDATE "${tableName}" ${set} REMOVE "${FINGERPRINT}" ${where}`;
  const keeping = `UPDATE "${tableName}" ${set} ${where} AND "${FINGERPRINT}" = ?`;
  const moved = new Set<string>();
  const retry: string[] = [];
  const groups = groupsOf(ids, WRITE_BATCH);
  let next = 0;
  async function worker(): Promise<void> {
    while (next < groups.length) {
      const group = groups[next++] as string[];
      const result = await client.send(
        new BatchExecuteStatementCommand({
          Statements: group.map((id) => {
            const fingerprint = fingerprints?.get(id);
            return {
              Statement: fingerprint === undefined ? forgetting : keeping,
              Parameters: [
                to,
                to === 'indexed',
                now,
                ...(settles ? [] : [UNSETTLED_PARTITION, unsettledKey(now, id)]),
                `ctx#${id}`,
                RECORD_SORT_KEY,
                ...from,
                ...(fingerprint === undefined ? [] : [fingerprint]),
              ],
            };
          }),
        }),
      );
      (result.Responses ?? []).forEach((response, i) => {
        const id = group[i] as string;
        if (!response.Error) moved.add(id);
        else if (response.Error.Code !== 'ConditionalCheckFailed') retry.push(id);
      });
    }
  }
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, groups.length) }, worker));
  return { moved, retry };
}
