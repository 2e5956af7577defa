import {
  CreateTableCommand,
  type CreateTableCommandInput,
  DescribeTableCommand,
  type DynamoDBClient,
  ResourceInUseException,
  UpdateTimeToLiveCommand,
} from '@aws-sdk/client-dynamodb';

/**
 * One table for everything (see docs/ARCHITECTURE.md). Items are addressed by `pk`/`sk`; each index is sparse,
 * so an item appears in an index only when it carries that index's key attributes.
 */
export const TABLE_KEYS = {
  partition: 'pk',
  sort: 'sk',
  ttl: 'expiresAt',
  indexes: {
    /** All records of one tenant partition (`user:<id>` or `org:<id>`), newest first. */
    byTenant: { partition: 'gsi1pk', sort: 'gsi1sk' },
    /** All records one user owns, across partitions. */
    byOwner: { partition: 'gsi2pk', sort: 'gsi2sk' },
    /** Document records only, per tenant: view/docs and delete by document. */
    documentsByTenant: { partition: 'gsi3pk', sort: 'gsi3sk' },
    /** Records not yet settled (pending, deleting, failed), oldest first: the cleanup's work list. */
    unsettled: { partition: 'gsi4pk', sort: 'gsi4sk' },
    /** Items with an expiry (chat sessions, replays), by expiry time: the cleanup's sweep list. */
    byExpiry: { partition: 'gsi5pk', sort: 'gsi5sk' },
  },
} as const;

export type IndexName = keyof typeof TABLE_KEYS.indexes;

/** The CreateTable input shared by local runs, tests and (as a cross-check) the SST infra definition. */
export function tableDefinition(tableName: string): CreateTableCommandInput {
  const attributes = new Set<string>([TABLE_KEYS.partition, TABLE_KEYS.sort]);
  const indexes = Object.entries(TABLE_KEYS.indexes).map(([name, keys]) => {
    attributes.add(keys.partition);
    attributes.add(keys.sort);
    return {
      IndexName: name,
      KeySchema: [
        { AttributeName: keys.partition, KeyType: 'HASH' as const },
        { AttributeName: keys.sort, KeyType: 'RANGE' as const },
      ],
      Projection: { ProjectionType: 'ALL' as const },
    };
  });
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    KeySchema: [
      { AttributeName: TABLE_KEYS.partition, KeyType: 'HASH' },
      { AttributeName: TABLE_KEYS.sort, KeyType: 'RANGE' },
    ],
    AttributeDefinitions: [...attributes].map((name) => ({ AttributeName: name, AttributeType: 'S' as const })),
    GlobalSecondaryIndexes: indexes,
  };
}

/** Creates the table if it does not exist and waits until it is active. Safe to call concurrently. */
export async function ensureTable(client: DynamoDBClient, tableName: string): Promise<void> {
  try {
    await client.send(new CreateTableCommand(tableDefinition(tableName)));
  } catch (error) {
    if (!(error instanceof ResourceInUseException)) throw error;
  }
  for (let attempt = 0; attempt < 100; attempt++) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName: tableName }));
    if (Table?.TableStatus === 'ACTIVE') break;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
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
