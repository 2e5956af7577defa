import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ContextRecord, TenantKey } from '@memgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLexicalEmbedder } from '../packages/adapters/src/embedders/lexical/index.ts';
import { vectorItemOf } from '../packages/core/src/cleanup/vectors.ts';
import { createLocalVectorIndex } from '../packages/local/src/vector-index/index.ts';
import { contextRepositoryFor } from './lambda/harness.ts';
import { createTestTable, type TestTable } from './support/dynamo.ts';

const run = promisify(execFile);
const TENANT: TenantKey = 'user:bob';
const OLD = new Date(Date.now() - 60 * 60_000).toISOString();

let table: TestTable;
let dataDir: string;

function chunk(id: string, status: ContextRecord['status']): ContextRecord {
  return {
    _id: id,
    kind: 'chunk',
    user_id: 'bob',
    organization_id: null,
    parent_context_nodes: [],
    children_context_nodes: [],
    context_type: 'resource',
    tags: [],
    source: 'wiki',
    content: `text of ${id}`,
    blob: null,
    indexed: status === 'indexed',
    indexable: true,
    governing_policies: null,
    override_policy: false,
    telemetry_data: {},
    createdAt: OLD,
    updatedAt: OLD,
    scopes: ['internal'],
    metadata: { size: 10, file_name: 'wiki.md', doc_type: 'text/markdown', modalities: ['text'] },
    corresponding_vector_id: id,
    text: `text of ${id}`,
    status,
    tenant: TENANT,
    document_id: id,
    attempts: 0,
  };
}

beforeAll(async () => {
  table = await createTestTable('cli');
  dataDir = mkdtempSync(join(tmpdir(), 'memgate-cleanup-'));
});
afterAll(() => {
  table?.documentClient.destroy();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('npm run cleanup', () => {
  it('repairs the local data and prints what it did', async () => {
    const repository = contextRepositoryFor(table);
    await repository.putMany([chunk('stuck', 'pending'), chunk('hidden', 'deleting')]);
    const index = await createLocalVectorIndex({ dir: join(dataDir, 'vectors') });
    const [values] = await createLexicalEmbedder({ dimension: 512 }).embed(['text of hidden'], 'document');
    const item = vectorItemOf(chunk('hidden', 'deleting'), values as Float32Array);
    await index.upsert(TENANT, [item, { ...item, id: 'orphan' }]);
    await index.close();

    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'packages/local/src/cleanup-cli.ts'], {
      env: {
        ...process.env,
        DATA_DIR: dataDir,
        DYNAMODB_ENDPOINT: table.endpoint,
        TABLE_NAME: table.tableName,
        LOG_LEVEL: 'error',
      },
    });
    expect(JSON.parse(stdout.trim().split('\n').at(-1) as string)).toMatchObject({
      reindexed: 1,
      deletedRecords: 1,
      orphanVectors: 1,
      complete: true,
    });

    expect((await repository.get('stuck'))?.status).toBe('indexed');
    expect(await repository.get('hidden')).toBeUndefined();
    const reopened = await createLocalVectorIndex({ dir: join(dataDir, 'vectors') });
    expect((await reopened.listIds(TENANT, { limit: 10 })).items).toEqual(['stuck']);
    await reopened.close();
  }, 60_000);
});
