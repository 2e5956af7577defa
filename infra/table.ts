import { type IndexName, projectionOf, TABLE_KEYS } from '../packages/adapters/src/dynamodb/table.ts';

// The same keys and indexes as `tableDefinition` (local runs and tests), read from the one source of truth. A
// deployed stack adds an index new in TABLE_KEYS on update; DynamoDB builds it from the items already there.
const fields: Record<string, 'string'> = { [TABLE_KEYS.partition]: 'string', [TABLE_KEYS.sort]: 'string' };
const globalIndexes: Record<string, { hashKey: string; rangeKey: string; projection: 'all' | string[] }> = {};
for (const [name, keys] of Object.entries(TABLE_KEYS.indexes)) {
  fields[keys.partition] = 'string';
  fields[keys.sort] = 'string';
  const projection = projectionOf(name as IndexName);
  globalIndexes[name] = {
    hashKey: keys.partition,
    rangeKey: keys.sort,
    projection: projection ? [...projection] : 'all',
  };
}

/** Records, sessions and replays; TTL on `expiresAt` removes expired sessions even if the cleanup lags. */
export const table = new sst.aws.Dynamo('Table', {
  fields,
  primaryIndex: { hashKey: TABLE_KEYS.partition, rangeKey: TABLE_KEYS.sort },
  globalIndexes,
  ttl: TABLE_KEYS.ttl,
  deletionProtection: $app.stage === 'prod',
  transform: {
    table: (args) => {
      args.pointInTimeRecovery = { enabled: true };
    },
  },
});
