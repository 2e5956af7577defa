export { createDocumentClient, type DynamoOptions } from './client.ts';
export { ensureTable, type IndexName, TABLE_KEYS, tableDefinition } from './table.ts';
