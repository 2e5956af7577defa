import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLES_HOOK_TIMEOUT_MS } from '../support/bundles.ts';
import { type ApiResult, httpEvent, lambdaContext } from '../support/lambda.ts';
import { tokenFor } from '../support/tokens.ts';
import { type LambdaHarness, startLambdaHarness } from './harness.ts';

type UrlHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<ApiResult>;

const FUNCTION_URL = 'https://abc123.lambda-url.us-east-1.on.aws/mcp';

let harness: LambdaHarness;
let handler: UrlHandler;
const invocations: { method: string; status: number }[] = [];

beforeAll(async () => {
  harness = await startLambdaHarness();
  handler = await harness.handlerOf<UrlHandler>('mcp');
}, BUNDLES_HOOK_TIMEOUT_MS);
afterAll(() => harness?.close());

/**
 * A `fetch` that delivers each request to the built bundle as its function URL would (payload 2.0 event, buffered
 * result), so the SDK's own client drives the Lambda handler.
 */
async function viaFunctionUrl(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const url = new URL(request.url);
  const body = request.method === 'POST' ? await request.text() : undefined;
  const event = httpEvent({
    method: request.method,
    path: url.pathname,
    headers: Object.fromEntries(request.headers),
    ...(body === undefined ? {} : { body }),
    functionUrl: true,
  });
  const result = await handler(event, lambdaContext('Mcp'));
  invocations.push({ method: request.method, status: result.statusCode });
  const payload = result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body;
  return new Response(result.body === '' ? null : payload, {
    status: result.statusCode,
    headers: result.headers as Record<string, string>,
  });
}

async function connect(token: string | undefined): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(new URL(FUNCTION_URL), {
    fetch: viaFunctionUrl,
    requestInit: token ? { headers: { authorization: `Bearer ${token}` } } : {},
  });
  const client = new Client({ name: 'memgate-lambda-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const call = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as CallToolResult;

describe('the MCP Lambda (function URL, buffered)', () => {
  it('serves the memory tools to the SDK client: add, search, delete, on DynamoDB and Pinecone', async () => {
    const client = await connect(await tokenFor('alice', { scope: 'context:read context:write context:delete' }));
    expect((await client.listTools()).tools.map((tool) => tool.name).sort()).toEqual([
      'add_memory',
      'delete_memory',
      'list_documents',
      'search_memory',
    ]);
    const added = await call(client, 'add_memory', {
      content: 'The staging database is rebuilt every Sunday night.',
      fileName: 'ops-notes',
    });
    const { contextId } = added.structuredContent as { contextId: string };
    const found = await call(client, 'search_memory', { query: 'when is the staging database rebuilt' });
    expect(found.structuredContent).toMatchObject({
      results: [{ documentId: contextId, fileName: 'ops-notes', text: expect.stringContaining('Sunday') }],
    });
    expect(await call(client, 'delete_memory', { source: 'ops-notes' })).toMatchObject({
      structuredContent: { deleted: true },
    });
    const after = await call(client, 'search_memory', { query: 'when is the staging database rebuilt' });
    expect(after.structuredContent).toEqual({ results: [] });
    // Every message was one buffered invocation that succeeded; the client's GET for a notification stream is
    // told 405 (stateless), which the spec lets a client take as "no stream".
    const statuses = (method: string) => new Set(invocations.filter((i) => i.method === method).map((i) => i.status));
    expect([...statuses('POST')].every((status) => status === 200 || status === 202)).toBe(true);
    expect([...statuses('GET')]).toEqual([405]);
    await client.close();
  });

  it('refuses a missing scope as a tool error, and a missing token with 401', async () => {
    const reader = await connect(await tokenFor('bob', { scope: 'context:read' }));
    const refused = await call(reader, 'add_memory', { content: 'nope' });
    expect(refused).toMatchObject({
      isError: true,
      content: [{ type: 'text', text: "this token lacks the 'context:write' scope" }],
    });
    await reader.close();
    await expect(connect(undefined)).rejects.toSatisfy(
      (error) => error instanceof StreamableHTTPError && error.code === 401,
    );
  });
});
