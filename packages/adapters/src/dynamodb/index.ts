export { createDocumentClient, type DynamoOptions } from './client.ts';
export { createDynamoContextRepository, type DynamoContextRepositoryOptions } from './context-repository.ts';
export { createDynamoSessionRepository, type DynamoSessionRepositoryOptions } from './session-repository.ts';
export { type IndexName, TABLE_KEYS, tableDefinition } from './table.ts';
export { ensureTable, type SetupLog } from './table-setup.ts';
