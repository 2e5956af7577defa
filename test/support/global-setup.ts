import type { TestProject } from 'vitest/node';
import { startDynamoLocal } from '../../packages/local/src/dynamo-local.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    dynamoEndpoint: string;
  }
}

/** One in-memory DynamoDB Local for the whole run; each test file makes its own table in it. */
export default async function setup(project: TestProject) {
  const endpoint = process.env.DYNAMODB_ENDPOINT;
  if (endpoint) {
    project.provide('dynamoEndpoint', endpoint);
    return;
  }
  const dynamo = await startDynamoLocal();
  project.provide('dynamoEndpoint', dynamo.endpoint);
  return async () => {
    await dynamo.stop();
  };
}
