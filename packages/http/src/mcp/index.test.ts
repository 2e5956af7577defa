import { type ContextStore, MemgateError } from '@memgate/core';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { TEST_SECRET, tokenFor } from '../../../../test/support/tokens.ts';
import { createTokenVerifier } from '../auth/index.ts';
import { createJsonLogger } from '../observability/index.ts';
import { createMcpApp } from './index.ts';

const unused = () => Promise.reject(new Error('not called'));

/** The MCP app over a stub store, and the SDK's client talking to it through `app.request` (no server). */
async function clientOver(store: Partial<ContextStore>, scope = 'context:read context:write context:delete') {
  const logs: Record<string, unknown>[] = [];
  const app = createMcpApp({
    verifier: createTokenVerifier({ kind: 'hs256', secret: TEST_SECRET }),
    logger: createJsonLogger({ level: 'debug', sink: (line) => logs.push(JSON.parse(line)) }),
    store: { add: unused, search: unused, delete: unused, view: unused, viewDocs: unused, ...store } as ContextStore,
  });
  const transport = new StreamableHTTPClientTransport(new URL('http://memgate.test/mcp'), {
    fetch: async (url, init) => app.request(String(url), init as RequestInit),
    requestInit: { headers: { authorization: `Bearer ${await tokenFor('u1', { orgs: ['acme'], scope })}` } },
  });
  const client = new Client({ name: 'unit', version: '1' });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>) =>
    (await client.callTool({ name, arguments: args })) as CallToolResult;
  return { call, logs };
}

describe('MCP tools over the context store', () => {
  it('map each tool to its store use case with the token principal and the HTTP defaults', async () => {
    const calls: unknown[] = [];
    const { call } = await clientOver({
      add: async (principal, input) => {
        calls.push(['add', principal.userId, input]);
        return { contextIds: ['doc_1'], documents: [{ contextId: 'doc_1', fileName: 'f', chunks: 1 }] };
      },
      search: async (principal, input) => {
        calls.push(['search', principal.userId, input]);
        return [
          { contextId: 'doc_1.00000', contextData: 'hit', score: 0.5, documentId: 'doc_1', fileName: 'f', source: 's' },
        ];
      },
      delete: async (principal, input) => {
        calls.push(['delete', principal.userId, input]);
      },
    });
    expect(
      await call('add_memory', { content: 'c', fileName: 'f', organization_id: 'acme', metadata: { tags: ['x'] } }),
    ).toMatchObject({ structuredContent: { contextId: 'doc_1' } });
    const found = await call('search_memory', { query: 'q', min_score: 0.3, top_k: 5 });
    // `source` is not in the declared output: it is dropped, so the client's schema check passes.
    expect(found.structuredContent).toEqual({
      results: [{ contextId: 'doc_1.00000', text: 'hit', score: 0.5, fileName: 'f', documentId: 'doc_1' }],
    });
    await call('delete_memory', { source: 'f' });
    expect(calls).toEqual([
      [
        'add',
        'u1',
        { documents: [{ content: 'c', fileName: 'f' }], organization_id: 'acme', metadata: { tags: ['x'] } },
      ],
      ['search', 'u1', { query: 'q', similarity_threshold: 1, minimum_similarity_threshold: 0.3, top_k: 5 }],
      ['delete', 'u1', { source: 'f' }],
    ]);
  });

  it('give a store refusal its own message, and hide an internal failure behind the HTTP 500 message', async () => {
    const { call, logs } = await clientOver({
      add: () => Promise.reject(new MemgateError('permission', 'forbidden', 'not in that organization')),
      search: () => Promise.reject(new Error('dynamodb://internal-host password=hunter2')),
    });
    expect(await call('add_memory', { content: 'c' })).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'not in that organization' }],
    });
    const failed = await call('search_memory', { query: 'q' });
    expect(failed).toEqual({ isError: true, content: [{ type: 'text', text: 'internal server error' }] });
    expect(JSON.stringify(failed)).not.toContain('hunter2');
    // The cause is logged for the operator, as the HTTP areas log a 500.
    expect(logs).toContainEqual(
      expect.objectContaining({ msg: 'mcp tool call failed', error: expect.stringContaining('internal-host') }),
    );
    expect(logs).toContainEqual(
      expect.objectContaining({ msg: 'mcp tool call', tool: 'search_memory', outcome: 'internal_error' }),
    );
  });
});
