import { createDocumentClient, createDynamoContextRepository, createLexicalEmbedder } from '@memgate/adapters';
import { createContextStore } from '@memgate/core';
import { createContextApp, createTokenVerifier, silentLogger } from '@memgate/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { settleUnderFakeTime, startHangingServer } from '../support/hanging-server.ts';
import { createMemoryIndex } from '../support/memory-ports.ts';
import { TEST_SECRET, tokenFor } from '../support/tokens.ts';

// A DynamoDB that accepts connections and never answers (issue 12, item 15): each request through the context
// area ends with a clean 500 in the area's format within the DynamoDB deadlines, instead of hanging until the
// platform's limit. Fake time: the test takes no real 25 s.

let hung: Awaited<ReturnType<typeof startHangingServer>>;
let app: ReturnType<typeof createContextApp>;
let token: string;
const index = createMemoryIndex();

beforeAll(async () => {
  hung = await startHangingServer();
  const clock = { now: () => new Date() };
  const client = createDocumentClient({ endpoint: hung.url });
  const repository = createDynamoContextRepository({ client, tableName: 'memgate', clock });
  const embedder = createLexicalEmbedder();
  const store = createContextStore({ repository, index: index.index, embedder, clock });
  // A vector for search to hit, so that it goes on to read the hit's rows.
  const [values] = await embedder.embed(['penguins'], 'document');
  await index.index.upsert('user:alice', [
    {
      id: 'doc_seed.0',
      values: values as Float32Array,
      metadata: {
        documentId: 'doc_seed',
        userId: 'alice',
        scopes: ['internal'],
        source: 's',
        fileName: 'seed.txt',
        docType: 'text/plain',
        contextType: 'resource',
        tags: [],
      },
    },
  ]);
  app = createContextApp({
    verifier: createTokenVerifier({ kind: 'hs256', secret: TEST_SECRET }),
    logger: silentLogger,
    store,
  });
  token = await tokenFor('alice', { scope: 'context:read context:write context:delete' });
});
afterAll(() => hung.close());

async function call(method: 'GET' | 'POST', path: string, body?: unknown) {
  const response = await app.request(`/api/v1/context/${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, json: await response.json() };
}

describe('context routes over a DynamoDB that never answers', () => {
  it.each([
    ['add', () => call('POST', 'add', { documents: [{ content: 'Penguins eat krill.', fileName: 'p.txt' }] })],
    ['view', () => call('GET', 'view')],
    ['view/docs', () => call('GET', 'view/docs')],
    [
      'search',
      () => call('POST', 'search', { query: 'penguins', similarity_threshold: 1, minimum_similarity_threshold: 0 }),
    ],
    ['delete', () => call('POST', 'delete', { source: 'p.txt' })],
  ])('%s answers 500 in the area format within the call deadline', async (_route, request) => {
    const before = hung.requests;
    const { value, error, elapsed } = await settleUnderFakeTime(request, { startWhen: () => hung.requests > before });
    expect(error).toBeUndefined();
    expect(value?.status).toBe(500);
    expect(value?.json).toEqual({ response: expect.any(String), error: 'internal_error' });
    // Counted from DynamoDB's first request: one call's deadline (25 s) and the answer written after it (time moves
    // on in 1 s steps meanwhile) is the bound; nothing waits for a platform limit.
    expect(elapsed).toBeGreaterThanOrEqual(25_000);
    expect(elapsed).toBeLessThanOrEqual(28_000);
  });

  it('add wrote no vector while its rows could not be written', () => {
    expect(index.allIds()).toEqual(['doc_seed.0']);
  });
});
