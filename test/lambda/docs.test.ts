import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliDecompressSync } from 'node:zlib';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { API_ROUTES } from '../../packages/http/src/docs/document.ts';
import { scalarStandalonePath } from '../../packages/local/src/docs.ts';
import { BUNDLES_HOOK_TIMEOUT_MS, buildTestBundles, type TestBundles } from '../support/bundles.ts';
import { type ApiResult, httpEvent, importBundle, lambdaContext } from '../support/lambda.ts';
import { refsOf } from '../support/openapi-refs.ts';

// The built docs function as API Gateway invokes it: the API reference on the AWS API's host, its assets from the
// function (no CDN), the document complete and resolved.

type ApiHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<ApiResult>;
const PROXY_URL = 'https://proxy-id.lambda-url.us-east-1.on.aws/';
const CHAT_URL = 'https://chat-id.lambda-url.us-east-1.on.aws/';

let built: TestBundles;
let handler: ApiHandler;
beforeAll(async () => {
  built = await buildTestBundles();
  Object.assign(process.env, { MEMGATE_PROXY_URL: PROXY_URL, MEMGATE_CHAT_URL: CHAT_URL });
  handler = (await importBundle(join(built.dir, 'docs', 'index.mjs'))).handler as unknown as ApiHandler;
}, BUNDLES_HOOK_TIMEOUT_MS);
afterAll(() => built?.remove());

const get = (path: string, headers: Record<string, string> = {}) =>
  handler(httpEvent({ method: 'GET', path, headers }), lambdaContext('docs'));

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, { requestBody?: unknown }> & { servers?: { url: string }[] }>;
  components: { schemas: Record<string, unknown> };
};

describe('the docs function', () => {
  it('serves openapi.json with every endpoint, every reference resolved, the streaming areas on their URLs', async () => {
    const res = await get('/api/v1/openapi.json');
    expect(res.statusCode).toBe(200);
    const doc = JSON.parse(res.body) as Doc;
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
      Object.keys(item)
        .filter((key) => key !== 'servers')
        .map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(API_ROUTES.map((route) => `${route.method.toUpperCase()} ${route.path}`).sort());
    expect(operations).toEqual(
      expect.arrayContaining([
        'POST /api/v1/context/add',
        'POST /api/v1/proxy/{proxyUrl}/{target_api_key}/chat/completions',
        'POST /api/v1/proxy/default/responses',
        'GET /api/v1/proxy/default/models',
        'POST /api/v1/chat/generate/stream',
        'GET /api/v1/chat/replay/{replaySessionID}',
      ]),
    );
    const refs = refsOf(doc);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) expect(doc.components.schemas, ref).toHaveProperty([ref.split('/').at(-1) as string]);
    // The proxy and the chat answer on their function URLs, not on the API's host.
    expect(doc.paths['/api/v1/proxy/default/chat/completions']?.servers).toEqual([
      { url: PROXY_URL.replace(/\/$/, ''), description: 'the proxy function URL' },
    ]);
    expect(doc.paths['/api/v1/chat/generate/stream']?.servers?.[0]?.url).toBe(CHAT_URL.replace(/\/$/, ''));
    expect(doc.paths['/api/v1/context/add']?.servers).toBeUndefined();
  });

  it('serves the Scalar page, which loads its script and the document from this host only', async () => {
    const res = await get('/docs');
    expect(res.statusCode).toBe(200);
    expect(res.headers?.['content-type']).toContain('text/html');
    expect(res.body).toContain('/docs/scalar.js');
    expect(res.body).toContain('/api/v1/openapi.json');
    expect(res.body).not.toMatch(/(?:src|href)="https?:/);
  });

  it("serves Scalar's script from beside its bundle: brotli to a browser that takes it, plain text otherwise", async () => {
    const original = readFileSync(scalarStandalonePath(), 'utf8');
    const compressed = await get('/docs/scalar.js', { 'accept-encoding': 'gzip, deflate, br' });
    expect(compressed.statusCode).toBe(200);
    expect(compressed.headers?.['content-encoding']).toBe('br');
    expect(compressed.isBase64Encoded).toBe(true);
    const bytes = Buffer.from(compressed.body, 'base64');
    expect(bytes.length).toBeLessThan(original.length / 3);
    expect(brotliDecompressSync(bytes).toString('utf8')).toBe(original);
    const plain = await get('/docs/scalar.js');
    expect(plain.statusCode).toBe(200);
    expect(plain.headers?.['content-encoding']).toBeUndefined();
    expect(plain.body).toBe(original);
  });
});
