import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { ResponseStream } from 'lambda-stream';

/** Imports a built bundle (built under node_modules, so the test runner leaves it to Node's loader untouched). */
export async function importBundle(file: string): Promise<{ handler: (...args: never[]) => Promise<unknown> }> {
  return import(/* @vite-ignore */ pathToFileURL(file).href);
}

/** An API Gateway HTTP API (payload 2.0) event, as API Gateway and function URLs send it. */
export function httpEvent({
  method,
  path,
  query = '',
  headers = {},
  body,
  functionUrl = false,
}: {
  method: string;
  path: string;
  query?: string;
  headers?: Record<string, string>;
  body?: unknown;
  functionUrl?: boolean;
}): APIGatewayProxyEventV2 {
  const domainName = functionUrl ? 'abc123.lambda-url.us-east-1.on.aws' : 'api123.execute-api.us-east-1.amazonaws.com';
  const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body);
  return {
    version: '2.0',
    routeKey: functionUrl ? '$default' : `${method} ${path}`,
    rawPath: path,
    rawQueryString: query,
    headers: {
      host: domainName,
      'user-agent': 'memgate-test',
      ...(text === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(text.length) }),
      ...headers,
    },
    ...(query ? { queryStringParameters: Object.fromEntries(new URLSearchParams(query)) } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId: functionUrl ? 'abc123' : 'api123',
      domainName,
      domainPrefix: functionUrl ? 'abc123' : 'api123',
      http: { method, path, protocol: 'HTTP/1.1', sourceIp: '203.0.113.7', userAgent: 'memgate-test' },
      requestId: `req-${Math.random().toString(36).slice(2)}`,
      routeKey: functionUrl ? '$default' : `${method} ${path}`,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    ...(text === undefined ? {} : { body: text }),
    isBase64Encoded: false,
  };
}

/** The Lambda context object a handler receives; `remainingMs` is what getRemainingTimeInMillis reports. */
export function lambdaContext(name: string, remainingMs = 30_000): Context {
  const deadline = Date.now() + remainingMs;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${name}`,
    memoryLimitInMB: '512',
    awsRequestId: `aws-${Math.random().toString(36).slice(2)}`,
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'test',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => {},
    fail: () => {},
    succeed: () => {},
  };
}

export type ApiResult = APIGatewayProxyStructuredResultV2 & { statusCode: number; body: string };

const PRELUDE_END = Buffer.alloc(8);

/**
 * Stands in for the Lambda runtime's `awslambda` global in RESPONSE_STREAM mode: `streamifyResponse` marks the
 * handler, `HttpResponseStream.from` writes the JSON prelude and 8 NUL bytes before the body, as the runtime does.
 */
export function installAwslambda(): void {
  Object.assign(globalThis, {
    awslambda: {
      streamifyResponse: (handler: unknown) => handler,
      HttpResponseStream: {
        from(stream: ResponseStream, prelude: Record<string, unknown>) {
          stream.setContentType('application/vnd.awslambda.http-integration-response');
          stream.write(JSON.stringify(prelude));
          stream.write(PRELUDE_END);
          return stream;
        },
      },
    },
  });
}

/** A handler wrapped by `awslambda.streamifyResponse` (hono's `streamHandle`). */
export type StreamingHandler = (
  event: APIGatewayProxyEventV2,
  stream: ResponseStream,
  context: Context,
) => Promise<unknown>;

export interface StreamedResponse {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  /** Body writes in arrival order: more than one means the body streamed. */
  writes: string[];
}

/** Invokes a streaming handler the way a function URL does and splits the prelude from the body. */
export async function invokeStreaming(
  handler: StreamingHandler,
  event: APIGatewayProxyEventV2,
  context = lambdaContext('stream'),
): Promise<StreamedResponse> {
  const stream = new ResponseStream();
  const writes: Buffer[] = [];
  const write = stream.write.bind(stream);
  stream.write = ((chunk: Buffer | string, ...rest: never[]) => {
    writes.push(Buffer.from(chunk));
    return write(chunk, ...rest);
  }) as typeof stream.write;
  await handler(event, stream, context);
  const all = stream.getBufferedData();
  const end = all.indexOf(PRELUDE_END);
  if (end < 0) throw new Error('the handler wrote no HTTP prelude');
  const prelude = JSON.parse(all.subarray(0, end).toString('utf8')) as {
    statusCode: number;
    headers: Record<string, string>;
  };
  return {
    statusCode: prelude.statusCode,
    headers: prelude.headers,
    body: all.subarray(end + PRELUDE_END.length).toString('utf8'),
    writes: writes.slice(2).map((chunk) => chunk.toString('utf8')),
  };
}
