import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

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

/** The error of a DynamoDB call that outlived its deadline: a clean 500 for the caller, a clear line in the log. */
export class DynamoDeadlineError extends Error {
  constructor(operation: string, ms: number) {
    super(`DynamoDB ${operation} did not complete within ${ms} ms`);
    this.name = 'DynamoDeadlineError';
  }
}

type Send = DynamoDBDocumentClient['send'];

/** How the document client marshals items (item-attributes.ts builds the same values for rows written in bulk). */
export const DOCUMENT_MARSHALL_OPTIONS = { removeUndefinedValues: true, convertClassInstanceToMap: false } as const;

/**
 * Every call through `client` gets an abort signal that fires at the call's deadline. The SDK's retry middleware
 * does not retry an abort and races its pauses against the signal, and its HTTP handler destroys the request in
 * flight, so the call ends at the deadline whatever attempt it is in. Timers are the global setTimeout (not
 * AbortSignal.timeout) so that tests can drive them with fake timers.
 */
function withCallDeadline(client: DynamoDBDocumentClient, totalTimeoutMs: number): void {
  const send = client.send.bind(client) as (
    command: unknown,
    options?: { abortSignal?: AbortSignal },
  ) => Promise<unknown>;
  async function sendWithDeadline(command: { constructor: { name: string } }, options?: { abortSignal?: AbortSignal }) {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), totalTimeoutMs);
    const signal = options?.abortSignal ? AbortSignal.any([options.abortSignal, deadline.signal]) : deadline.signal;
    try {
      return await send(command, { ...options, abortSignal: signal });
    } catch (error) {
      if (deadline.signal.aborted && !options?.abortSignal?.aborted) {
        throw new DynamoDeadlineError(command.constructor.name.replace(/Command$/, ''), totalTimeoutMs);
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }
  client.send = sendWithDeadline as unknown as Send;
}

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
