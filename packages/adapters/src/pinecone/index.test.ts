import { isMemgateError, type VectorItem } from '@memgate/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { hybridIndexConformance } from '../../../../test/conformance/hybrid-index.ts';
import { axisVector, metadataFor, vectorIndexConformance } from '../../../../test/conformance/vector-index.ts';
import { type PineconeEmulator, type RecordedRequest, startPineconeEmulator } from './emulator/index.ts';
import { createPineconeVectorIndex } from './index.ts';

const API_KEY = 'pcsk_test_key_never_logged';
let emulator: PineconeEmulator;

beforeAll(async () => {
  emulator = await startPineconeEmulator({ apiKey: API_KEY });
});
afterAll(() => emulator.close());

type SentVector = { id: string; values: number[]; metadata: object };
const vectorsOf = (request: RecordedRequest) => (request.body?.vectors ?? []) as SentVector[];

const adapter = (attempts = 4) =>
  createPineconeVectorIndex({
    apiKey: API_KEY,
    indexName: 'memgate',
    host: emulator.url,
    retry: { attempts, baseDelayMs: 1, maxDelayMs: 5 },
  });

// The real client against Pinecone's data-plane API as the emulator serves it.
vectorIndexConformance('Pinecone (recorded data-plane API)', () => adapter());
hybridIndexConformance('Pinecone (recorded data-plane API)', () => adapter());

describe('Pinecone vector index: requests the real client sends', () => {
  beforeEach(() => {
    emulator.requests.length = 0;
  });

  const items = (count: number, dimension: number): VectorItem[] =>
    Array.from({ length: count }, (_, i) => ({
      id: `chunk-${i}`,
      values: axisVector(dimension, i),
      metadata: { ...metadataFor({ tags: ['t'] }), internalNote: 'not for pinecone' } as VectorItem['metadata'],
    }));

  it('prepares without sending anything or failing, and the next call is served as without it', async () => {
    const index = adapter();
    expect(index.prepare?.()).toBeUndefined();
    await index.upsert('user:prepared', items(1, 4));
    expect(emulator.requests.map((request) => request.path)).toEqual(['/vectors/upsert']);
  });

  it('upserts into the tenant namespace in batches of at most 1,000, with only the metadata fields', async () => {
    await adapter().upsert('org:acme', items(2_500, 8));
    // The batches go out concurrently: the emulator sees them in whatever order they arrive.
    const upserts = emulator.requests
      .filter((request) => request.path === '/vectors/upsert')
      .sort((a, b) => Number(vectorsOf(a)[0]?.id.slice(6)) - Number(vectorsOf(b)[0]?.id.slice(6)));
    expect(upserts.map((request) => vectorsOf(request).length)).toEqual([1000, 1000, 500]);
    expect(upserts.flatMap((request) => vectorsOf(request).map((vector) => vector.id))).toEqual(
      Array.from({ length: 2_500 }, (_, i) => `chunk-${i}`),
    );
    for (const request of upserts) {
      expect(request.method).toBe('POST');
      expect(request.body?.namespace).toBe('org:acme');
      expect(request.apiKey).toBe(API_KEY);
      expect(request.apiVersion).toMatch(/^\d{4}-\d{2}$/);
    }
    const first = (upserts[0] ? vectorsOf(upserts[0]) : [])[0];
    expect(first?.id).toBe('chunk-0');
    expect(first?.values).toHaveLength(8);
    expect(first?.metadata).toEqual(metadataFor({ tags: ['t'] }));
  });

  it('keeps every upsert request under 2 MB when vectors are large', async () => {
    await adapter().upsert('org:wide', items(600, 3072));
    const upserts = emulator.requests.filter((request) => request.path === '/vectors/upsert');
    expect(upserts.length).toBeGreaterThan(1);
    for (const request of upserts) expect(request.bodyBytes).toBeLessThanOrEqual(2 * 1024 * 1024);
    const sent = upserts.reduce((sum, request) => sum + vectorsOf(request).length, 0);
    expect(sent).toBe(600);
  });

  it('refuses metadata over 40 KB before sending anything', async () => {
    const huge = [{ id: 'big', values: axisVector(8, 0), metadata: metadataFor({ tags: ['x'.repeat(41 * 1024)] }) }];
    const error = await adapter()
      .upsert('org:acme', huge)
      .catch((caught: unknown) => caught);
    expect(isMemgateError(error) && error.code).toBe('vector_metadata_too_large');
    expect(emulator.requests).toHaveLength(0);
  });

  it('translates filters to $eq for scalars and $in for list fields, and parses clamped scores', async () => {
    const index = adapter();
    await index.upsert('user:u1', [
      { id: 'a', values: axisVector(8, 0), metadata: metadataFor({ documentId: 'd1', scopes: ['internal'] }) },
      {
        id: 'b',
        values: axisVector(8, 0).map((v) => -v),
        metadata: metadataFor({ documentId: 'd1', scopes: ['internal'] }),
      },
    ]);
    const matches = await index.query('user:u1', {
      vector: axisVector(8, 0),
      topK: 5,
      filter: { documentId: 'd1', scopes: 'internal' },
    });
    const request = emulator.requests.find((recorded) => recorded.path === '/query');
    expect(request?.body).toMatchObject({
      namespace: 'user:u1',
      topK: 5,
      includeMetadata: true,
      includeValues: false,
      filter: { documentId: { $eq: 'd1' }, scopes: { $in: ['internal'] } },
    });
    expect(matches.map((match) => [match.id, match.score])).toEqual([
      ['a', expect.closeTo(1, 5)],
      ['b', 0],
    ]);
    expect(matches[0]?.metadata).toEqual(metadataFor({ documentId: 'd1', scopes: ['internal'] }));
    // An empty list is left out of what is stored and reads back as [].
    const upsert = emulator.requests.find((recorded) => recorded.path === '/vectors/upsert');
    expect(upsert ? vectorsOf(upsert)[0]?.metadata : undefined).not.toHaveProperty('tags');
  });

  it('lists ids page by page with the pagination token, and namespaces from the index stats', async () => {
    const index = adapter();
    await index.upsert('user:pages', items(7, 8));
    const first = await index.listIds('user:pages', { limit: 5 });
    const second = await index.listIds('user:pages', { limit: 5, cursor: first.nextCursor as string });
    expect([...first.items, ...second.items]).toHaveLength(7);
    expect(second.nextCursor).toBeNull();
    const lists = emulator.requests.filter((request) => request.path === '/vectors/list');
    expect(lists[0]?.query).toEqual({ namespace: 'user:pages', limit: '5' });
    expect(lists[1]?.query).toEqual({ namespace: 'user:pages', limit: '5', paginationToken: first.nextCursor });
    expect(await index.listNamespaces()).toContain('user:pages');
    expect(emulator.requests.at(-1)?.path).toBe('/describe_index_stats');
  });

  it('treats a delete in a namespace Pinecone has never seen as done', async () => {
    await adapter().delete('user:never-written', ['x']);
    expect(emulator.requests.map((request) => request.path)).toEqual(['/vectors/delete']);
  });

  it('retries a 429 and then succeeds', async () => {
    emulator.failNext(429, 1, { 'retry-after': '0' });
    await adapter().upsert('user:retry', items(3, 8));
    const upserts = emulator.requests.filter((request) => request.path === '/vectors/upsert');
    expect(upserts).toHaveLength(2);
    expect((await adapter().listIds('user:retry', { limit: 10 })).items).toHaveLength(3);
  });

  it('retries a 503 on query', async () => {
    await adapter().upsert('user:retry-query', items(1, 8));
    emulator.failNext(503, 2);
    const matches = await adapter().query('user:retry-query', { vector: axisVector(8, 0), topK: 1 });
    expect(matches.map((match) => match.id)).toEqual(['chunk-0']);
  });

  it('gives up after the bounded attempts with an error that names the operation, not the key', async () => {
    emulator.failNext(429, 3); // a fourth attempt would be served, and succeed
    const error = await adapter(3)
      .query('user:u1', { vector: axisVector(8, 0), topK: 1 })
      .catch((caught: unknown) => caught);
    expect(isMemgateError(error) && error.kind).toBe('upstream_unavailable');
    expect(String((error as Error).message)).toMatch(/Pinecone query failed/);
    expect(String((error as Error).message)).not.toContain(API_KEY);
    expect(emulator.requests).toHaveLength(3);
  });
});
