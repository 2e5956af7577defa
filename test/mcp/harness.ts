import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { startTestLocalServer } from '../support/local-server.ts';
import { TEST_SECRET } from '../support/tokens.ts';

export interface McpHarness {
  url: string;
  /** An MCP client of the SDK, connected over Streamable HTTP with `token` as its bearer token. */
  connect(token: string | undefined): Promise<Client>;
  /** The same server's HTTP API, to compare what both say about the same request. */
  http(path: string, token: string, body: unknown): Promise<{ status: number; json: { response?: string } }>;
  close(): Promise<void>;
}

/**
 * The real local server (`startLocalServer`: every area, the embedded vector index under a fresh DATA_DIR) on the
 * run's DynamoDB Local with a table of its own, listening on a free port.
 */
export async function startMcpHarness(): Promise<McpHarness> {
  const server = await startTestLocalServer('mcp', { AUTH_JWT_SECRET: TEST_SECRET, LOG_LEVEL: 'silent' });
  const clients: Client[] = [];
  return {
    url: server.url,
    async connect(token) {
      const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: token === undefined ? {} : { headers: { authorization: `Bearer ${token}` } },
      });
      const client = new Client({ name: 'memgate-test', version: '1.0.0' });
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    async http(path, token, body) {
      const response = await fetch(`${server.url}/api/v1/context/${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await response.text();
      return { status: response.status, json: text ? JSON.parse(text) : {} };
    },
    async close() {
      await Promise.all(clients.map((client) => client.close()));
      await server.stop();
    },
  };
}

/** Calls a tool and returns its result as the client received it. */
export async function callTool(client: Client, name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

/** The message of a tool error result (its one text content). */
export function errorText(result: CallToolResult): string {
  const [content] = result.content;
  return content?.type === 'text' ? content.text : '';
}
