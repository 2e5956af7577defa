import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { loadConfig } from '@memgate/adapters';
import { createContextServices } from '@memgate/adapters/services/context';
import { createEmbedder } from '@memgate/adapters/services/embedder';
import type { VectorIndex } from '@memgate/core';
import { type PineconeEmulator, startPineconeEmulator } from '../../packages/adapters/src/pinecone/emulator/index.ts';
import { buildTestBundles } from '../support/bundles.ts';
import { createTestTable, type TestTable } from '../support/dynamo.ts';
import { importBundle, installAwslambda } from '../support/lambda.ts';
import { TEST_SECRET } from '../support/tokens.ts';

export const PINECONE_KEY = 'pcsk_lambda_test_key';

export interface LambdaHarness {
  /** Where the bundles were built: `<dir>/<name>/index.mjs`. */
  dir: string;
  table: TestTable;
  pinecone: PineconeEmulator;
  /** The `handler` export of a built bundle, loaded by Node as the Lambda runtime would. */
  handlerOf<T = (...args: never[]) => Promise<unknown>>(name: string): Promise<T>;
  close(): Promise<void>;
}

/**
 * The AWS runtime's surroundings on one machine: the built bundles, a DynamoDB Local table and the Pinecone
 * data-plane emulator (Pinecone itself is out of reach), wired to the bundles through the environment variables
 * infra/functions.ts sets in AWS. `env` adds or overrides variables for this test file.
 */
export async function startLambdaHarness(env: Record<string, string> = {}): Promise<LambdaHarness> {
  const [built, table, pinecone] = await Promise.all([
    buildTestBundles(),
    createTestTable('lambda'),
    startPineconeEmulator({ apiKey: PINECONE_KEY }),
  ]);
  Object.assign(process.env, {
    AWS_REGION: 'us-east-1',
    // Set by Lambda for on-demand instances; Powertools reports cold starts only when it is.
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    TABLE_NAME: table.tableName,
    DYNAMODB_ENDPOINT: table.endpoint,
    VECTOR_STORE: 'pinecone',
    PINECONE_API_KEY: PINECONE_KEY,
    PINECONE_INDEX: 'memgate',
    PINECONE_HOST: pinecone.url,
    EMBEDDINGS: 'local',
    AUTH_JWT_SECRET: TEST_SECRET,
    LOG_LEVEL: 'silent',
    ...env,
  });
  installAwslambda();
  return {
    dir: built.dir,
    table,
    pinecone,
    async handlerOf<T>(name: string) {
      const module = await importBundle(join(built.dir, name, 'index.mjs'));
      return module.handler as T;
    },
    async close() {
      await pinecone.close();
      table.documentClient.destroy();
      built.remove();
    },
  };
}

/** The DynamoDB ContextRepository the context services build (to inject records in tests). */
export function contextRepositoryFor(table: { documentClient: DynamoDBDocumentClient; tableName: string }) {
  const config = loadConfig({});
  return createContextServices(
    {
      config,
      documentClient: table.documentClient,
      tableName: table.tableName,
      vectorIndex: {} as VectorIndex,
      clock: { now: () => new Date() },
      log: () => {},
    },
    { embedder: createEmbedder(config) },
  ).repository;
}
