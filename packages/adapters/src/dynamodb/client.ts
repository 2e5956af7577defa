import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { withCallDeadline } from './call-deadline.ts';

export { DynamoDeadlineError } from './call-deadline.ts';

export interface DynamoOptions {
  /** DynamoDB Local's URL; unset in AWS. */
  endpoint?: string;
  region?: string;
  /** One attempt's deadline: a DynamoDB that accepts a request and never answers is given up on (and retried). */
  attemptTimeoutMs?: number;
  /** Connecting alone (a port that swallows the SYN): part of the attempt, shorter than it. */
  connectTimeoutMs?: number;
  /** One call's deadline, the SDK's retries and their pauses included (under API Gateway's 29 s). */
  totalTimeoutMs?: number;
  /** More of the SDK client's settings (the Lambda runtime's, functions/runtime/sdk-config.ts). */
  sdkConfig?: Partial<DynamoDBClientConfig>;
}

/** How the document client marshals items (item-attributes.ts builds the same values for rows written in bulk). */
export const DOCUMENT_MARSHALL_OPTIONS = { removeUndefinedValues: true, convertClassInstanceToMap: false } as const;

/**
 * A document client that drops `undefined` attributes and keeps numbers as numbers, with deadlines like the
 * Pinecone and embedding calls have (http-retry): `attemptTimeoutMs` per attempt (the SDK retries a timed-out
 * attempt), `totalTimeoutMs` per call.
 */
export function createDocumentClient({
  endpoint,
  region,
  attemptTimeoutMs = 10_000,
  connectTimeoutMs = 3_000,
  totalTimeoutMs = 25_000,
  sdkConfig = {},
}: DynamoOptions = {}): DynamoDBDocumentClient {
  const client = new DynamoDBClient({
    ...sdkConfig,
    region: region ?? process.env.AWS_REGION ?? 'us-east-1',
    ...(endpoint
      ? {
          endpoint,
          // DynamoDB Local accepts any credentials; fixed ones keep it from looking for a profile.
          credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
        }
      : {}),
    maxAttempts: 5,
    // Without throwOnRequestTimeout the SDK's handler only logs a warning when requestTimeout passes.
    requestHandler: {
      connectionTimeout: Math.min(connectTimeoutMs, attemptTimeoutMs),
      requestTimeout: attemptTimeoutMs,
      throwOnRequestTimeout: true,
    },
  });
  // The SDK's logger middleware builds a redacted copy of every input and output (a walk of each item read) to hand
  // to its logger, even the default no-op one; we never give it a logger, so that copy is pure cost.
  client.middlewareStack.remove('loggerMiddleware');
  const documentClient = DynamoDBDocumentClient.from(client, { marshallOptions: { ...DOCUMENT_MARSHALL_OPTIONS } });
  withCallDeadline(documentClient, totalTimeoutMs);
  return documentClient;
}
