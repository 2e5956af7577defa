import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createPineconeInferenceEmbedder } from '@memgate/adapters/embedders/pinecone/index';
import { type PineconeEmulator, startPineconeEmulator } from '@memgate/adapters/pinecone/emulator/index';
import { createPineconeVectorIndex } from '@memgate/adapters/pinecone/index';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { nodeFetch } from '../../functions/runtime/node-fetch.ts';
import { axisVector, metadataFor, vectorIndexConformance } from '../conformance/vector-index.ts';

// The Lambda functions run the Pinecone adapters (the SDK's Index and Inference classes) over the node:http fetch of
// functions/runtime/node-fetch.ts instead of the global fetch: the conformance suite and the behaviours the adapters
// rely on, over that transport.
const API_KEY = 'pcsk_rest_test_key';
let emulator: PineconeEmulator;
let control: Server;
let controlUrl: string;

beforeAll(async () => {
  emulator = await startPineconeEmulator({
    apiKey: API_KEY,
    embed: (texts, inputType) => texts.map((_, i) => Array.from(axisVector(1024, inputType === 'query' ? 0 : i + 1))),
  });
  // The control plane's describe_index, which gives the data-plane host when PINECONE_HOST is not set (Pinecone
  // answers a bare host name, https implied; the emulator speaks http, so its URL keeps the scheme).
  control = createServer((req, res) => {
    const found = req.url === '/indexes/memgate' && req.headers['api-key'] === API_KEY;
    res.writeHead(found ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(found ? { name: 'memgate', host: emulator.url } : {}));
  });
  await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
  controlUrl = `http://127.0.0.1:${(control.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await emulator.close();
  await new Promise((resolve) => control.close(resolve));
});

// As functions/runtime/aws.ts builds it: the adapters' retry policy over node:http.
const retry = (attempts = 4) => ({ attempts, baseDelayMs: 1, maxDelayMs: 5, fetch: nodeFetch });

const adapter = (attempts?: number) =>
  createPineconeVectorIndex({ apiKey: API_KEY, indexName: 'memgate', host: emulator.url, retry: retry(attempts) });

vectorIndexConformance('Pinecone over node:http (Lambda transport)', () => adapter());

describe('Pinecone adapters over node:http', () => {
  beforeEach(() => {
    emulator.requests.length = 0;
  });

  it('sends the key and API version the SDK sends, and nothing of the key in errors', async () => {
    await adapter().upsert('user:alice', [{ id: 'a', values: axisVector(4, 0), metadata: metadataFor() }]);
    expect(emulator.requests[0]).toMatchObject({ apiKey: API_KEY, apiVersion: '2026-04', path: '/vectors/upsert' });
    emulator.failNext(500, 3);
    const error = await adapter(3)
      .query('user:alice', { vector: axisVector(4, 0), topK: 1 })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ kind: 'upstream_unavailable', message: 'Pinecone query failed' });
    expect(JSON.stringify(error)).not.toContain(API_KEY);
  });

  it('retries a 429 through the adapters’ fetch, and treats a namespace Pinecone never saw as empty', async () => {
    emulator.failNext(429, 1, { 'retry-after': '0' });
    await adapter().upsert('user:bob', [{ id: 'b', values: axisVector(4, 1), metadata: metadataFor() }]);
    expect(emulator.requests.filter((request) => request.path === '/vectors/upsert')).toHaveLength(2);
    await expect(adapter().delete('user:never', ['x'])).resolves.toBeUndefined();
  });

  it('looks the index host up once through the control plane when none is configured', async () => {
    const index = createPineconeVectorIndex({
      apiKey: API_KEY,
      indexName: 'memgate',
      retry: retry(),
      controllerHostUrl: controlUrl,
    });
    await index.upsert('user:carol', [{ id: 'c', values: axisVector(4, 2), metadata: metadataFor() }]);
    const matches = await index.query('user:carol', { vector: axisVector(4, 2), topK: 1 });
    expect(matches.map((match) => match.id)).toEqual(['c']);
  });

  it('embeds through the inference API as passages and queries', async () => {
    const embedder = createPineconeInferenceEmbedder({
      apiKey: API_KEY,
      model: 'multilingual-e5-large',
      controllerHostUrl: emulator.url,
      retry: retry(),
    });
    const [passage] = await embedder.embed(['a passage'], 'document');
    const [query] = await embedder.embed(['a query'], 'query');
    const strongest = (vector: Float32Array | undefined) => [...(vector ?? [])].indexOf(Math.max(...(vector ?? [])));
    expect(strongest(passage)).toBe(1);
    expect(strongest(query)).toBe(0);
    const embeds = emulator.requests.filter((request) => request.path === '/embed');
    expect(embeds.map((request) => request.body?.parameters)).toEqual([
      { input_type: 'passage', truncate: 'END' },
      { input_type: 'query', truncate: 'END' },
    ]);
  });
});
