import { createDynamoContextRepository, createLexicalEmbedder } from '@memgate/adapters';
import type { ContextRepository, VectorIndex } from '@memgate/core';
import { createContextStore, runCleanup } from '@memgate/core';
import { createContextApp, createTokenVerifier, silentLogger } from '@memgate/http';
import { createFailingIndex } from './context-fakes.ts';
import { createTestTable } from './dynamo.ts';
import { createMemoryIndex } from './memory-ports.ts';
import { TEST_SECRET, tokenFor } from './tokens.ts';

/** The context area over DynamoDB Local, the lexical embedder and `index`, with helpers for HTTP tests. */
export async function createContextHarness(index: VectorIndex) {
  const table = await createTestTable('ctx');
  const clock = { now: () => new Date() };
  const repository: ContextRepository = createDynamoContextRepository({
    client: table.documentClient,
    tableName: table.tableName,
    clock,
  });
  const embedder = createLexicalEmbedder();
  const store = createContextStore({ repository, index, embedder, clock });
  const app = createContextApp({
    verifier: createTokenVerifier({ kind: 'hs256', secret: TEST_SECRET }),
    logger: silentLogger,
    store,
  });
  async function call(
    method: 'GET' | 'POST',
    path: string,
    token: string | undefined,
    body?: unknown,
    // biome-ignore lint/suspicious/noExplicitAny: tests read response fields ad hoc
  ): Promise<{ status: number; json: any }> {
    const response = await app.request(`/api/v1/context/${path}`, {
      method,
      headers: {
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, json: text ? JSON.parse(text) : null };
  }
  /** Runs the cleanup as if every unsettled record were stale. */
  const cleanup = () =>
    runCleanup({
      repository,
      index,
      embedder,
      clock: { now: () => new Date(Date.now() + 3_600_000) },
      deadline: new Date(Date.now() + 7_200_000),
    });
  return { app, repository, store, table, call, cleanup, tokenFor };
}

/** The harness over a memory index that fails on demand: set `failing.upsert` (or the others) to make it throw. */
export async function createFailingContextHarness() {
  const { index, failing } = createFailingIndex(createMemoryIndex().index);
  return { h: await createContextHarness(index), failing };
}
