import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/** What delete by document reads of a document's index entry (NamedDocument in core), besides the keys. */
const NAMED_DOCUMENT = ['_id', 'user_id', 'status', 'tenant', 'source', 'metadata'] as const;

/**
 * One table for everything (see docs/ARCHITECTURE.md). Items are addressed by `pk`/`sk`; each index is sparse,
 * so an item appears in an index only when it carries that index's key attributes. An index projects the whole item
 * unless it names the attributes it carries (`projection`; its keys and the table's always come along).
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
    /** Document records only, per tenant: view/docs. */
    documentsByTenant: { partition: 'gsi3pk', sort: 'gsi3sk' },
    /**
     * The same entries with only what a delete by document matches on and hides by (NamedDocument), not the list of
     * chunk ids and the rest of the row: a query's read units count the projected bytes.
     */
    documentNamesByTenant: { partition: 'gsi3pk', sort: 'gsi3sk', projection: NAMED_DOCUMENT },
    /**
     * A tenant's documents by source, and by file name: the partition is the tenant and a hash of the name
     * (document-names.ts), so a delete by document reads only the documents it names, however many the tenant has.
     */
    documentsBySource: { partition: 'gsi6pk', sort: 'gsi6sk', projection: NAMED_DOCUMENT },
    documentsByFileName: { partition: 'gsi7pk', sort: 'gsi7sk', projection: NAMED_DOCUMENT },
    /** Records not yet settled (pending, deleting, failed), oldest first: the cleanup's work list. */
    unsettled: { partition: 'gsi4pk', sort: 'gsi4sk' },
    /** Items with an expiry (chat sessions, replays), by expiry time: the cleanup's sweep list. */
    byExpiry: { partition: 'gsi5pk', sort: 'gsi5sk' },
  },
} as const;

export type IndexName = keyof typeof TABLE_KEYS.indexes;

/** The attributes an index carries besides the keys, or undefined when it carries the whole item. */
export function projectionOf(index: IndexName): readonly string[] | undefined {
  const keys = TABLE_KEYS.indexes[index];
  return 'projection' in keys ? keys.projection : undefined;
}

/** The CreateTable input shared by local runs, tests and (as a cross-check) the SST infra definition. */
export function tableDefinition(tableName: string): CreateTableCommandInput {
  const attributes = new Set<string>([TABLE_KEYS.partition, TABLE_KEYS.sort]);
  const indexes = Object.entries(TABLE_KEYS.indexes).map(([name, keys]) => {
    attributes.add(keys.partition);
    attributes.add(keys.sort);
    const projection = projectionOf(name as IndexName);
    return {
      IndexName: name,
      KeySchema: [
        { AttributeName: keys.partition, KeyType: 'HASH' as const },
        { AttributeName: keys.sort, KeyType: 'RANGE' as const },
      ],
      Projection: projection
        ? { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...projection] }
        : { ProjectionType: 'ALL' as const },
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
