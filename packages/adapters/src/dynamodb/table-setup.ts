import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  type TableDescription,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DynamoDeadlineError } from './client.ts';
import { backfillDocumentNames } from './document-names.ts';
import { TABLE_KEYS, tableDefinition } from './table.ts';

const POLL_MS = 100;
/** DynamoDB Local builds an index over a local data directory in seconds; a table that takes longer is not local. */
const WAIT_MS = 5 * 60 * 1000;

/** What table setup tells the operator while it works (an upgrade of a large local data directory takes minutes). */
export type SetupLog = (message: string, fields?: Record<string, unknown>) => void;

/**
 * The table's description, or undefined (as for a table not described yet) when DescribeTable outlived its deadline:
 * DynamoDB Local answers nothing while it builds an index over a large table (over 25 s for 111k rows on a loaded
 * machine), which is a reason to ask again, not to fail the start.
 */
async function describeWhileBuilding(client: DynamoDBClient, tableName: string): Promise<TableDescription | undefined> {
  try {
    return (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
  } catch (error) {
    if (error instanceof DynamoDeadlineError) return undefined;
    throw error;
  }
}

/** Waits until the table, and every index it has, is ACTIVE (an index being built is still CREATING). */
export async function waitUntilActive(client: DynamoDBClient, tableName: string): Promise<TableDescription> {
  const giveUpAt = Date.now() + WAIT_MS;
  for (;;) {
    const table = await describeWhileBuilding(client, tableName);
    const building = (table?.GlobalSecondaryIndexes ?? []).filter((index) => index.IndexStatus !== 'ACTIVE');
    if (table?.TableStatus === 'ACTIVE' && building.length === 0) return table;
    if (Date.now() > giveUpAt) {
      const names = building.map((index) => index.IndexName).join(', ');
      throw new Error(
        `table ${tableName} is not active after ${WAIT_MS / 1000} s${names ? ` (building ${names})` : ''}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Adds to an existing table the indexes of `definition` it lacks, one UpdateTable per index (DynamoDB creates one
 * index per call), each built by DynamoDB from the items already there and waited for until ACTIVE. A concurrent
 * caller adding the same index makes this call fail; it then waits for the table to be active and finds the index.
 */
export async function addMissingIndexes(
  client: DynamoDBClient,
  definition: CreateTableCommandInput,
  log?: SetupLog,
): Promise<void> {
  const tableName = definition.TableName as string;
  // One DescribeTable when nothing is missing (DynamoDB Local answers it slowly on a large data directory).
  const has = (table: TableDescription | undefined, name: string | undefined) =>
    (table?.GlobalSecondaryIndexes ?? []).some((existing) => existing.IndexName === name);
  const table = await waitUntilActive(client, tableName);
  const missing = (definition.GlobalSecondaryIndexes ?? []).filter((index) => !has(table, index.IndexName));
  for (const index of missing) {
    log?.('table upgrade: adding an index, built from the existing items (once; minutes for a large data directory)', {
      table: tableName,
      index: index.IndexName,
    });
    const keys = new Set(index.KeySchema?.map((key) => key.AttributeName));
    try {
      await client.send(
        new UpdateTableCommand({
          TableName: tableName,
          AttributeDefinitions: definition.AttributeDefinitions?.filter((a) => keys.has(a.AttributeName)),
          GlobalSecondaryIndexUpdates: [
            { Create: { IndexName: index.IndexName, KeySchema: index.KeySchema, Projection: index.Projection } },
          ],
        }),
      );
    } catch (error) {
      // Refused: a concurrent caller's creation (the index is there) or a real error. Described by waiting, as DynamoDB
      // Local may be building that index and answer nothing for a while.
      if (!has(await waitUntilActive(client, tableName), index.IndexName)) throw error;
    }
    await waitUntilActive(client, tableName);
  }
}

/**
 * Creates the table if it does not exist, or adds the indexes an existing table lacks (a local data directory from
 * an older version), and waits until it and its indexes are active; then gives document rows written before the
 * indexes by name their keys (document-names.ts: at once, as nothing else writes a local data directory meanwhile).
 * Concurrent calls are safe while they only create the table. Adding indexes is for one process at a time, as a
 * local data directory is (data-dir-lock.ts): DynamoDB Local accepts a second creation of an index being created
 * and then never reports it ACTIVE.
 */
export async function ensureTable(client: DynamoDBDocumentClient, tableName: string, log?: SetupLog): Promise<void> {
  const definition = tableDefinition(tableName);
  try {
    await client.send(new CreateTableCommand(definition));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  await addMissingIndexes(client, definition, log);
  const backfill = await backfillDocumentNames(client, tableName, { now: () => new Date(), settleMs: 0 });
  if (backfill.updated > 0) log?.('table upgrade: documents given their name keys', { documents: backfill.updated });
  try {
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName: tableName,
        TimeToLiveSpecification: { AttributeName: TABLE_KEYS.ttl, Enabled: true },
      }),
    );
  } catch {
    // Already enabled (a second call is refused); expiry is also enforced on read and by the cleanup.
  }
}
