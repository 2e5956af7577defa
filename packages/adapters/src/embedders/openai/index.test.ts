import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isMemgateError } from '@memgate/core';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { embedderConformance } from '../../../../../test/conformance/embedder.ts';
import { createLexicalEmbedder } from '../lexical/index.ts';
import { createOpenAIEmbedder } from './index.ts';

const API_KEY = 'sk-test-secret-0123456789';

interface Recorded {
  url: string | undefined;
  authorization: string | undefined;
  body: { model: string; input: string[]; encoding_format?: string; dimensions?: number };
}

/**
 * An OpenAI-compatible `/embeddings` server backed by the lexical embedder, answering the way OpenAI documents it
 * (`data[i].index`), except that it returns the items in reverse order and unnormalised, to prove the adapter
 * reorders and normalises. `failures` queues error statuses for the next requests.
 */
async function startEmbeddingsServer() {
  const requests: Recorded[] = [];
  const failures: number[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Recorded['body'];
    requests.push({ url: req.url, authorization: req.headers.authorization, body });
    const failure = failures.shift();
    if (failure !== undefined || req.headers.authorization !== `Bearer ${API_KEY}`) {
      const status = failure ?? 401;
      res.writeHead(status, { 'content-type': 'application/json', 'retry-after': '0' });
      const message =
        status === 401 ? `Incorrect API key provided: ${req.headers.authorization?.slice(7)}` : 'slow down';
      return res.end(JSON.stringify({ error: { message, type: 'invalid_request_error' } }));
    }
    const embedder = createLexicalEmbedder({ dimension: body.dimensions ?? 512 });
    const vectors = await embedder.embed(body.input, 'document');
    const data = vectors.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: Array.from(vector, (v) => v * 3),
    }));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        object: 'list',
        data: data.reverse(),
        model: body.model,
        usage: { prompt_tokens: 1, total_tokens: 1 },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1/`,
    port,
    requests,
    failures,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let stub: Awaited<ReturnType<typeof startEmbeddingsServer>>;
beforeAll(async () => {
  stub = await startEmbeddingsServer();
});
afterAll(() => stub.close());

const embedder = (options: { apiKey?: string; model?: string; dimension?: number } = {}) =>
  createOpenAIEmbedder({
    baseUrl: stub.baseUrl,
    apiKey: 'apiKey' in options ? options.apiKey : API_KEY,
    model: options.model ?? 'local-embed',
    dimension: options.dimension ?? 512,
    retry: { attempts: 3, baseDelayMs: 1, maxDelayMs: 5 },
  });

embedderConformance('OpenAI-compatible /embeddings (stub server)', () => embedder());

describe('OpenAI-compatible embedder', () => {
  beforeEach(() => {
    stub.requests.length = 0;
  });

  it('sends at most 2,048 inputs per request and keeps the input order', async () => {
    const texts = Array.from({ length: 5000 }, (_, i) => `note number ${i}`);
    const vectors = await embedder().embed(texts, 'document');
    expect(stub.requests.map((request) => request.body.input.length)).toEqual([2048, 2048, 904]);
    const [expected] = await createLexicalEmbedder({ dimension: 512 }).embed([texts[4999] as string], 'document');
    expect(Array.from(vectors[4999] as Float32Array)).toEqual(
      Array.from(expected as Float32Array).map((v) => expect.closeTo(v, 5)),
    );
    expect(stub.requests[0]).toMatchObject({
      authorization: `Bearer ${API_KEY}`,
      body: { model: 'local-embed', encoding_format: 'float' },
    });
    expect(stub.requests[0]?.body).not.toHaveProperty('dimensions');
  });

  it('splits long texts so one request stays under the upstream token cap', async () => {
    const texts = Array.from({ length: 5 }, (_, i) => `${i} ${'word '.repeat(15_000)}`);
    expect(await embedder().embed(texts, 'document')).toHaveLength(5);
    const sizes = stub.requests.map((request) => request.body.input.join('').length);
    expect(sizes.length).toBeGreaterThan(1);
    for (const size of sizes) expect(size).toBeLessThanOrEqual(200_000);
  });

  it("keeps a base URL's query after /embeddings (Azure's api-version)", async () => {
    const client = createOpenAIEmbedder({
      baseUrl: `http://127.0.0.1:${stub.port}/v1/?api-version=2024-10-21`,
      apiKey: API_KEY,
      model: 'local-embed',
      dimension: 512,
    });
    expect(await client.embed(['hello'], 'query')).toHaveLength(1);
    expect(stub.requests[0]?.url).toBe('/v1/embeddings?api-version=2024-10-21');
  });

  it('asks text-embedding-3 models for the configured dimension', async () => {
    const client = embedder({ model: 'text-embedding-3-small', dimension: 256 });
    expect(client.id).toBe('openai:text-embedding-3-small:256');
    const [vector] = await client.embed(['hello'], 'query');
    expect(vector).toHaveLength(256);
    expect(stub.requests[0]?.body.dimensions).toBe(256);
  });

  it('knows the dimension of OpenAI models and asks for it otherwise', () => {
    expect(createOpenAIEmbedder({ baseUrl: stub.baseUrl, model: 'text-embedding-3-large' }).dimension).toBe(3072);
    expect(() => createOpenAIEmbedder({ baseUrl: stub.baseUrl, model: 'mystery' })).toThrow(/EMBEDDINGS_DIMENSION/);
  });

  it('retries a 429 and then succeeds', async () => {
    stub.failures.push(429);
    const vectors = await embedder().embed(['a', 'b'], 'document');
    expect(vectors).toHaveLength(2);
    expect(stub.requests).toHaveLength(2);
  });

  it('reports a rejected key without revealing it', async () => {
    const wrongKey = 'sk-wrong-key-abcdef123456';
    const error = await embedder({ apiKey: wrongKey })
      .embed(['x'], 'query')
      .catch((caught: unknown) => caught);
    expect(isMemgateError(error) && error.code).toBe('embeddings_unavailable');
    expect((error as Error).message).toMatch(/HTTP 401/);
    expect((error as Error).message).not.toContain(wrongKey);
    expect((error as Error).message).not.toContain(API_KEY);
  });

  it('reports an unreachable endpoint as unavailable', async () => {
    const closed = createOpenAIEmbedder({
      baseUrl: 'http://127.0.0.1:9/v1',
      model: 'local-embed',
      dimension: 512,
      retry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 2 },
    });
    const error = await closed.embed(['x'], 'query').catch((caught: unknown) => caught);
    expect(isMemgateError(error) && error.kind).toBe('upstream_unavailable');
  });
});
