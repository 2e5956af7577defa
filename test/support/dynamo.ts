import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient, ensureTable } from '@memgate/adapters';
import { inject } from 'vitest';

export interface TestTable {
  endpoint: string;
  tableName: string;
  documentClient: DynamoDBDocumentClient;
}

/** A fresh table in the run's DynamoDB Local, so test files never see each other's items. */
export async function createTestTable(prefix = 'test'): Promise<TestTable> {
  const endpoint = inject('dynamoEndpoint');
  const tableName = `${prefix}-${randomUUID().slice(0, 8)}`;
  const documentClient = createDocumentClient({ endpoint });
  await ensureTable(documentClient, tableName);
  return { endpoint, tableName, documentClient };
}
