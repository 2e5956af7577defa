import {
  type CreateTableCommandInput,
  DescribeTableCommand,
  type DynamoDBClient,
  type TableDescription,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';

const POLL_MS = 100;
/** DynamoDB Local builds an index over a local data directory in seconds; a table that takes longer is not local. */
const WAIT_MS = 5 * 60 * 1000;

async function describe(client: DynamoDBClient, tableName: string): Promise<TableDescription | undefined> {
  return (await client.send(new DescribeTableCommand({ TableName: tableName }))).Table;
}

/** Waits until the table, and every index it has, is ACTIVE (an index being built is still CREATING). */
export async function waitUntilActive(client: DynamoDBClient, tableName: string): Promise<TableDescription> {
  const giveUpAt = Date.now() + WAIT_MS;
  for (;;) {
    const table = await describe(client, tableName);
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
 * caller adding the same index makes this call fail; it then finds the index there and waits for it.
 */
export async function addMissingIndexes(client: DynamoDBClient, definition: CreateTableCommandInput): Promise<void> {
  const tableName = definition.TableName as string;
  for (const index of definition.GlobalSecondaryIndexes ?? []) {
    const table = await waitUntilActive(client, tableName);
    if ((table.GlobalSecondaryIndexes ?? []).some((existing) => existing.IndexName === index.IndexName)) continue;
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
      const now = await describe(client, tableName);
      if (!(now?.GlobalSecondaryIndexes ?? []).some((existing) => existing.IndexName === index.IndexName)) throw error;
    }
  }
  await waitUntilActive(client, tableName);
}
