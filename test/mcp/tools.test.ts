import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deeplyNested } from '../load/abuse.ts';
import { measureLoopHold } from '../support/event-loop.ts';
import { tokenFor } from '../support/tokens.ts';
import { callTool, errorText, type McpHarness, startMcpHarness } from './harness.ts';

const ALL = 'context:read context:write context:delete';

let h: McpHarness;
beforeAll(async () => {
  h = await startMcpHarness();
}, 60_000);
afterAll(() => h?.close());

async function clientOf(user: string, options: { orgs?: string[]; scope?: string } = {}): Promise<Client> {
  return h.connect(await tokenFor(user, { scope: ALL, ...options }));
}

/** A raw POST to /mcp, for messages the SDK's client would not send; `authorization` is the header's whole value. */
function postRaw(body: string, authorization?: string) {
  return fetch(`${h.url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(authorization ? { authorization } : {}),
    },
    body,
  });
}

async function fileNamesFound(client: Client, query: string, extra: Record<string, unknown> = {}) {
  const result = await callTool(client, 'search_memory', { query, ...extra });
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return (result.structuredContent as { results: { fileName: string }[] }).results.map((hit) => hit.fileName);
}

async function documentNames(client: Client, extra: Record<string, unknown> = {}) {
  const result = await callTool(client, 'list_documents', extra);
  expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
  return (result.structuredContent as { documents: { fileName: string }[] }).documents.map((doc) => doc.fileName);
}

describe('MCP server at /mcp (the SDK client over Streamable HTTP)', () => {
  it('lists the four memory tools with JSON Schema inputs and declared outputs', async () => {
    const client = await clientOf('lister');
    expect(client.getServerVersion()).toMatchObject({ name: 'memgate' });
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'add_memory',
      'delete_memory',
      'list_documents',
      'search_memory',
    ]);
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]));
    expect(byName.add_memory?.inputSchema).toMatchObject({
      type: 'object',
      required: ['content'],
      properties: { content: { type: 'string', maxLength: 1_000_000 }, fileName: { type: 'string' } },
    });
    expect(byName.search_memory?.inputSchema).toMatchObject({
      required: ['query'],
      properties: { top_k: { type: 'integer', maximum: 100 }, min_score: { minimum: 0, maximum: 1 } },
    });
    expect(byName.delete_memory?.inputSchema).toMatchObject({ required: ['source'] });
    expect(byName.delete_memory?.annotations).toMatchObject({ destructiveHint: true });
    expect(byName.search_memory?.annotations).toMatchObject({ readOnlyHint: true });
    for (const tool of tools) {
      expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object' });
      expect(tool.description, tool.name).toMatch(/Needs the 'context:\w+' scope\./);
    }
  });

  it('leaves out results that match nothing of the query (score 0) unless min_score asks for them', async () => {
    const client = await clientOf('zora');
    for (const [fileName, content] of [
      ['kayak', 'Zora paddles her kayak across the fjord every summer.'],
      ['ledger', 'Quarterly invoices reconcile against the accounts payable ledger.'],
    ]) {
      expect((await callTool(client, 'add_memory', { content, fileName })).isError).toBeFalsy();
    }
    const scoresOf = async (extra: Record<string, unknown>) => {
      const result = await callTool(client, 'search_memory', { query: 'kayak fjord', ...extra });
      expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
      return (result.structuredContent as { results: { fileName: string; score: number }[] }).results;
    };
    const found = await scoresOf({});
    expect(found.map((hit) => hit.fileName)).toEqual(['kayak']);
    expect(found[0]?.score).toBeGreaterThan(0);
    // The caller's own floor of 0 is the whole band, as on the HTTP search.
    expect((await scoresOf({ min_score: 0 })).map((hit) => [hit.fileName, hit.score > 0])).toEqual([
      ['kayak', true],
      ['ledger', false],
    ]);
  }, 60_000);

  it('adds a memory, finds it, lists it, deletes it, and then never finds it again', async () => {
    const client = await clientOf('alice');
    const added = await callTool(client, 'add_memory', {
      content: 'Alice prefers window seats and vegetarian meals on long flights.',
      fileName: 'travel-preferences',
    });
    expect(added.isError).toBeFalsy();
    const { contextId } = added.structuredContent as { contextId: string };
    expect(contextId).toMatch(/^doc_/);
    // The text content carries the same JSON, for clients that read only text.
    expect(JSON.parse(errorText(added))).toEqual({ contextId });

    const found = await callTool(client, 'search_memory', { query: 'which seat does alice like on flights' });
    const [best] = (found.structuredContent as { results: Record<string, unknown>[] }).results;
    expect(best).toMatchObject({
      text: 'Alice prefers window seats and vegetarian meals on long flights.',
      fileName: 'travel-preferences',
      documentId: contextId,
      contextId: expect.stringContaining(contextId),
    });
    expect(best?.score).toBeGreaterThan(0);
    expect(await documentNames(client)).toEqual(['travel-preferences']);

    const deleted = await callTool(client, 'delete_memory', { source: contextId, by_id: true });
    expect(deleted).toMatchObject({ structuredContent: { deleted: true } });
    expect(await fileNamesFound(client, 'which seat does alice like on flights')).toEqual([]);
    expect(await documentNames(client)).toEqual([]);
    // The first writes of the file warm DynamoDB Local and the embedded index: slow on a loaded 2-core machine.
  }, 60_000);

  it('deletes by name, and narrows a search by min_score and top_k', async () => {
    const client = await clientOf('dora');
    for (const [fileName, content] of [
      ['garden', 'The tomatoes in the garden need water every morning.'],
      ['garden-notes', 'Tomatoes and basil grow well together in the garden.'],
      ['car', 'The car is due for its service in March.'],
    ]) {
      expect((await callTool(client, 'add_memory', { content, fileName })).isError).toBeFalsy();
    }
    expect(await fileNamesFound(client, 'tomatoes garden', { top_k: 1 })).toHaveLength(1);
    expect(await fileNamesFound(client, 'tomatoes garden', { min_score: 0.99 })).toEqual([]);
    expect((await fileNamesFound(client, 'tomatoes garden')).sort()).toContain('garden');

    await callTool(client, 'delete_memory', { source: 'garden' });
    expect((await documentNames(client)).sort()).toEqual(['car', 'garden-notes']);
  });

  it("never shows one user another user's memory; an organization member sees the organization's", async () => {
    const erin = await clientOf('erin', { orgs: ['acme'] });
    const frank = await clientOf('frank', { orgs: ['acme'] });
    const gina = await clientOf('gina', { orgs: ['globex'] });
    await callTool(erin, 'add_memory', {
      content: 'Erin keeps her diary entries about the lighthouse.',
      fileName: 'diary',
    });
    await callTool(erin, 'add_memory', {
      content: 'The acme lighthouse project launches in September.',
      fileName: 'acme-roadmap',
      organization_id: 'acme',
    });

    expect((await fileNamesFound(erin, 'lighthouse')).sort()).toEqual(['acme-roadmap', 'diary']);
    expect(await fileNamesFound(frank, 'lighthouse')).toEqual(['acme-roadmap']);
    expect(await documentNames(frank)).toEqual(['acme-roadmap']);
    expect(await fileNamesFound(gina, 'lighthouse')).toEqual([]);
    expect(await documentNames(gina)).toEqual([]);

    // Naming an organization one is not in is refused, with the HTTP API's message, and shows nothing.
    const refused = await callTool(gina, 'search_memory', { query: 'lighthouse', organization_id: 'acme' });
    expect(refused.isError).toBe(true);
    const http = await h.http('search', await tokenFor('gina', { orgs: ['globex'], scope: ALL }), {
      query: 'lighthouse',
      organization_id: 'acme',
      similarity_threshold: 1,
      minimum_similarity_threshold: 0,
    });
    expect(http.status).toBe(403);
    expect(errorText(refused)).toBe(http.json.response);

    // Frank may not delete Erin's organization memory by its name: a delete narrows to the caller's own records.
    await callTool(frank, 'delete_memory', { source: 'acme-roadmap' });
    expect(await fileNamesFound(erin, 'lighthouse project')).toContain('acme-roadmap');
  });

  it("refuses a tool whose scope the token lacks, with the HTTP API's message, and changes nothing", async () => {
    const reader = await clientOf('hana', { scope: 'context:read' });
    const refused = await callTool(reader, 'add_memory', { content: 'should not be stored' });
    expect(refused).toMatchObject({ isError: true });
    expect(refused.structuredContent).toBeUndefined();
    const http = await h.http('add', await tokenFor('hana', { scope: 'context:read' }), {
      documents: [{ content: 'should not be stored' }],
    });
    expect(http.status).toBe(403);
    expect(errorText(refused)).toBe(http.json.response);
    expect(errorText(refused)).toContain("'context:write'");
    expect(await documentNames(reader)).toEqual([]);

    const writer = await clientOf('hana', { scope: 'context:write' });
    expect(errorText(await callTool(writer, 'search_memory', { query: 'x' }))).toContain("'context:read'");
    expect(errorText(await callTool(writer, 'delete_memory', { source: 'x' }))).toContain("'context:delete'");
  });

  it('takes an optional argument sent as null (as strict tool schemas have agents send it) as left out', async () => {
    const client = await clientOf('nell');
    const added = await callTool(client, 'add_memory', {
      content: 'Nell waters the ferns on Sundays.',
      fileName: null,
      organization_id: null,
      metadata: null,
    });
    expect(added.isError, JSON.stringify(added.content)).toBeFalsy();
    const unset = { top_k: null, min_score: null, organization_id: null };
    expect(await fileNamesFound(client, 'when are the ferns watered', unset)).toEqual(['untitled']);
    expect(await documentNames(client, { organization_id: null, cursor: null })).toEqual(['untitled']);
    const deleted = await callTool(client, 'delete_memory', { source: 'untitled', by_id: null });
    expect(deleted).toMatchObject({ structuredContent: { deleted: true } });
    expect(await documentNames(client)).toEqual([]);
    // A required argument is still required: null is refused, naming it.
    const refused = await callTool(client, 'search_memory', { query: null });
    expect(refused.isError).toBe(true);
    expect(errorText(refused)).toMatch(/^query: /);
  });

  it('answers invalid arguments with an error result naming the argument, and stores nothing', async () => {
    const client = await clientOf('ivan');
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ['add_memory', {}, /^content: /],
      ['add_memory', { content: '   ' }, /^content: must not be empty/],
      ['add_memory', { content: 'x'.repeat(1_000_001) }, /^content: .*1000000/],
      ['add_memory', { content: 'ok', organization_id: 42 }, /^organization_id: /],
      ['search_memory', { query: '' }, /^query: /],
      ['search_memory', { query: 'x', top_k: 101 }, /^top_k: .*100/],
      ['search_memory', { query: 'x', min_score: 2 }, /^min_score: .*1/],
      ['delete_memory', { by_id: true }, /^source: /],
      ['list_documents', { cursor: 'not-a-cursor' }, /cursor/],
    ];
    for (const [tool, args, message] of cases) {
      const result = await callTool(client, tool, args);
      expect(result.isError, `${tool} ${JSON.stringify(args).slice(0, 80)}`).toBe(true);
      expect(errorText(result), tool).toMatch(message);
    }
    expect(await documentNames(client)).toEqual([]);
    // A tool that does not exist is a protocol error, not a tool result.
    await expect(callTool(client, 'drop_everything', {})).rejects.toThrow(
      /^MCP error -32602: unknown tool 'drop_everything'$/,
    );
  });

  it('answers 401 before any MCP message without a valid token', async () => {
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    };
    for (const authorization of [
      undefined,
      'Bearer not-a-jwt',
      `Bearer ${await tokenFor('eve', { secret: 'other-secret-0123456789012345' })}`,
    ]) {
      const response = await postRaw(JSON.stringify(initialize), authorization);
      expect(response.status, authorization).toBe(401);
      expect(response.headers.get('www-authenticate')).toMatch(/^Bearer realm="memgate"/);
      const body = await response.json();
      expect(body).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
      expect(body.result).toBeUndefined();
    }
    await expect(h.connect(undefined)).rejects.toSatisfy(
      (error) => error instanceof StreamableHTTPError && error.code === 401,
    );
  });

  it('refuses a body over 6 MB with 413 before reading a message, like every other area', async () => {
    const token = await tokenFor('kim', { scope: ALL });
    const response = await postRaw(
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'add_memory', arguments: { content: 'x'.repeat(6 * 1024 * 1024) } },
      }),
      `Bearer ${token}`,
    );
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ jsonrpc: '2.0', id: null, error: { code: -32000 } });
    expect(await documentNames(await clientOf('kim'))).toEqual([]);
  });

  it('refuses a message nested deeper than 64 levels with a 400 JSON-RPC error, and stores nothing', async () => {
    const token = await tokenFor('nick', { scope: ALL });
    const send = (metadata: string) =>
      postRaw(
        `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add_memory","arguments":{"content":"deep note","metadata":{"x":${metadata}}}}}`,
        `Bearer ${token}`,
      );
    for (const depth of [100_000, 70]) {
      const response = await send(deeplyNested(depth));
      expect(response.status, `${depth} levels`).toBe(400);
      const body = await response.json();
      expect(body).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32600 } });
      expect(body.error.message).toMatch(/deeper than 64 levels/);
    }
    expect(await documentNames(await clientOf('nick'))).toEqual([]);
  });

  it('refuses an object of more than 10,000 members with a 400 JSON-RPC error, without a stall', async () => {
    // The SDK's schemas copy every member of params, _meta and arguments: 200,000 held the event loop ~2 s.
    const token = await tokenFor('olga', { scope: ALL });
    const many = Object.fromEntries(Array.from({ length: 60_000 }, (_, n) => [`k${n}`, 1]));
    const post = (params: Record<string, unknown>) =>
      send(JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params }));
    const send = (body: string) => postRaw(body, `Bearer ${token}`);
    const search = { name: 'search_memory', arguments: { query: 'note' } };
    const cases = [
      ['params', { ...search, ...many }],
      ['params._meta', { ...search, _meta: many }],
      ['params.arguments', { name: 'search_memory', arguments: { query: 'note', ...many } }],
      ['params.arguments.metadata', { name: 'add_memory', arguments: { content: 'a note', metadata: many } }],
    ] as const;
    for (const [at, params] of cases) {
      // Written before the measure: it is the client's work, in this process too.
      const body = JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/call', params });
      const { result, hold } = await measureLoopHold(async () => {
        const response = await send(body);
        return { status: response.status, body: await response.json() };
      });
      expect(result.status, at).toBe(400);
      expect(result.body).toEqual({
        jsonrpc: '2.0',
        id: 8,
        error: { code: -32600, message: `Invalid Request: ${at} holds more than 10000 members` },
      });
      expect(hold.cpuMs, `${at}: held the loop for ${hold.cpuMs} ms of CPU`).toBeLessThan(100);
    }
    // Metadata as large as the store takes (64 KB as JSON) holds fewer members: still added.
    const metadata = Object.fromEntries(Array.from({ length: 5_000 }, (_, n) => [`k${n}`, 1]));
    const added = await post({ name: 'add_memory', arguments: { content: 'a note', fileName: 'wide', metadata } });
    expect((await added.json()).result.structuredContent).toMatchObject({ contextId: expect.any(String) });
    expect(await documentNames(await clientOf('olga'))).toEqual(['wide']);
  });

  it('reads a 6 MB message of 450,000 distinct keys without a stall', async () => {
    // One JSON.parse of it held the event loop 0.3-1.5 s; the message is parsed in pieces (json-slices.ts).
    const token = await tokenFor('pia', { scope: ALL });
    const objects = Array.from({ length: 45_000 }, (_, n) => {
      const keys = Array.from({ length: 10 }, (_, k) => `"k${n * 10 + k}":1`);
      return `{${keys.join(',')}}`;
    });
    const body = `{"jsonrpc":"2.0","id":9,"method":"tools/list","params":{"_meta":{"x":[${objects.join(',')}]}}}`;
    expect(body.length).toBeLessThan(6 * 1024 * 1024);
    const { result, hold } = await measureLoopHold(async () => {
      const response = await postRaw(body, `Bearer ${token}`);
      return { status: response.status, body: await response.json() };
    });
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ jsonrpc: '2.0', id: 9, result: { tools: expect.any(Array) } });
    expect(hold.cpuMs, `held the loop for ${hold.cpuMs} ms of CPU`).toBeLessThan(100);
  });

  it('is stateless: GET and DELETE answer 405', async () => {
    const token = await tokenFor('judy', { scope: ALL });
    for (const method of ['GET', 'DELETE']) {
      const response = await fetch(`${h.url}/mcp`, { method, headers: { authorization: `Bearer ${token}` } });
      expect(response.status, method).toBe(405);
      expect(response.headers.get('allow')).toBe('POST');
    }
  });
});
