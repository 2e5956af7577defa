import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type ServiceInputs } from '@memgate/adapters';
import { systemClock } from '@memgate/core';
import { createLocalVectorIndex, denseGraphFor } from '@memgate/local/vector-index/index';
import { createTestTable, type TestTable } from './dynamo.ts';

/**
 * The services' inputs on the real local pieces, as `npm start` has them: a fresh DynamoDB Local table and an
 * embedded vector index in a temporary directory. `env` adds configuration; `close` removes the index.
 */
export async function createLocalInputs(
  prefix: string,
  env: Record<string, string> = {},
): Promise<{ inputs: ServiceInputs; table: TestTable; close(): Promise<void> }> {
  const dir = mkdtempSync(join(tmpdir(), `memgate-${prefix}-`));
  const table = await createTestTable(prefix);
  const config = loadConfig({ TABLE_NAME: table.tableName, ...env });
  const vectorIndex = await createLocalVectorIndex({ dir, denseGraph: denseGraphFor(config.EMBEDDINGS) });
  const inputs: ServiceInputs = {
    config,
    documentClient: table.documentClient,
    tableName: table.tableName,
    vectorIndex,
    clock: systemClock,
    log: () => {},
  };
  return {
    inputs,
    table,
    async close() {
      await vectorIndex.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
