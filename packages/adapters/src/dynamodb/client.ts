import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface DynamoOptions {
  /** DynamoDB Local's URL; unset in AWS. */
  endpoint?: string;
  region?: string;
}

/** A document client that drops `undefined` attributes and keeps numbers as numbers. */
export function createDocumentClient({ endpoint, region }: DynamoOptions = {}): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    region: region ?? process.env.AWS_REGION ?? 'us-east-1',
    ...(endpoint
      ? {
          endpoint,
          // DynamoDB Local accepts any credentials; fixed ones keep it from looking for a profile.
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : {}),
    maxAttempts: 5,
  });
  // The SDK's logger middleware builds a redacted copy of every input and output (a walk of each item read) to hand
  // to its logger, even the default no-op one; we never give it a logger, so that copy is pure cost.
  client.middlewareStack.remove('loggerMiddleware');
  return DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
}
