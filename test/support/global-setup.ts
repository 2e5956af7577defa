import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { startDynamoLocal } from '../../packages/local/src/dynamo-local.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
    /** Where this run's Lambda bundles are built, once, by the first test that needs them (support/bundles.ts). */
    bundlesDir: string;
  }
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

function removeTestBundles(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  rmSync(`${dir}.lock`, { recursive: true, force: true });
}

/** One in-memory DynamoDB Local for the whole run (each test file makes its own table in it), one bundle build. */
export default async function setup(project: TestProject) {
  const bundlesDir = join(ROOT, 'node_modules', '.cache', 'memgate-bundles', randomUUID().slice(0, 8));
  project.provide('bundlesDir', bundlesDir);
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  if (endpoint) {
    project.provide('dynamoEndpoint', endpoint);
    return () => removeTestBundles(bundlesDir);
  }
  const dynamo = await startDynamoLocal();
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return async () => {
    removeTestBundles(bundlesDir);
    await dynamo.stop();
  };
}
