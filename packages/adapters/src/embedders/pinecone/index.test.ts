import { isMemgateError } from '@memgate/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { embedderConformance } from '../../../../../test/conformance/embedder.ts';
import { type PineconeEmulator, startPineconeEmulator } from '../../pinecone/emulator/index.ts';
import { createLexicalEmbedder } from '../lexical/index.ts';
import { createPineconeInferenceEmbedder } from './index.ts';

const API_KEY = 'pcsk_inference_test_key';
let emulator: PineconeEmulator;

beforeAll(async () => {
  // The emulated model: lexical vectors, unnormalised (×2) to prove the adapter normalises.
  const model = createLexicalEmbedder({ dimension: 1024 });
  emulator = await startPineconeEmulator({
    apiKey: API_KEY,
    embed: async (texts) => (await model.embed(texts, 'document')).map((vector) => Array.from(vector, (v) => v * 2)),
  });
});
afterAll(() => emulator.close());

const embedder = (apiKey = API_KEY) =>
  createPineconeInferenceEmbedder({
    apiKey,
    model: 'multilingual-e5-large',
    controllerHostUrl: emulator.url,
    retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
  });

embedderConformance('Pinecone inference (recorded API)', () => embedder());

describe('Pinecone inference embedder', () => {
  beforeEach(() => {
    emulator.requests.length = 0;
  });

  it('embeds documents as passages and queries as queries, 96 inputs per request', async () => {
    const client = embedder();
    expect(client.id).toBe('pinecone:multilingual-e5-large:1024');
    const vectors = await client.embed(
      Array.from({ length: 200 }, (_, i) => `passage ${i}`),
      'document',
    );
    await client.embed(['what is in passage 7?'], 'query');
    expect(vectors).toHaveLength(200);
    const embeds = emulator.requests.filter((request) => request.path === '/embed');
    expect(embeds.map((request) => ((request.body?.inputs ?? []) as unknown[]).length)).toEqual([96, 96, 8, 1]);
    expect(embeds[0]?.body).toMatchObject({
      model: 'multilingual-e5-large',
      inputs: expect.arrayContaining([{ text: 'passage 0' }]),
      parameters: { input_type: 'passage', truncate: 'END' },
    });
    expect(embeds[3]?.body?.parameters).toEqual({ input_type: 'query', truncate: 'END' });
    expect(embeds[0]?.apiKey).toBe(API_KEY);
    expect(embeds[0]?.apiVersion).toMatch(/^\d{4}-\d{2}$/);
  });

  it('retries a 429 and then succeeds', async () => {
    emulator.failNext(429, 1, { 'retry-after': '0' });
    expect(await embedder().embed(['retry me'], 'document')).toHaveLength(1);
    expect(emulator.requests).toHaveLength(2);
  });

  it('reports a rejected key as unavailable without revealing it', async () => {
    const error = await embedder('pcsk_wrong_key_value')
      .embed(['x'], 'query')
      .catch((caught: unknown) => caught);
    expect(isMemgateError(error) && error.code).toBe('embeddings_unavailable');
    expect((error as Error).message).not.toContain('pcsk_wrong_key_value');
  });
});
