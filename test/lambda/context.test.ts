import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLES_HOOK_TIMEOUT_MS } from '../support/bundles.ts';
import { type ApiResult, httpEvent, lambdaContext } from '../support/lambda.ts';
import { tokenFor } from '../support/tokens.ts';
import { type LambdaHarness, startLambdaHarness } from './harness.ts';

type ApiHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<ApiResult>;

let harness: LambdaHarness;
let token: string;
const handlers: Record<string, ApiHandler> = {};

beforeAll(async () => {
  harness = await startLambdaHarness();
  for (const name of ['context-add', 'context-search', 'context-delete', 'context-view', 'context-view-docs']) {
    handlers[name] = await harness.handlerOf<ApiHandler>(name);
  }
  token = await tokenFor('alice', { scope: 'context:read context:write context:delete' });
}, BUNDLES_HOOK_TIMEOUT_MS);

afterAll(() => harness?.close());

/** Calls one function the way API Gateway's route for it does, and parses the JSON body. */
async function call(
  name: string,
  method: string,
  path: string,
  { body, query = '', auth = true } = {} as {
    body?: unknown;
    query?: string;
    auth?: boolean;
  },
) {
  const event = httpEvent({
    method,
    path,
    query,
    body,
    headers: auth ? { authorization: `Bearer ${token}` } : {},
  });
  const result = await (handlers[name] as ApiHandler)(event, lambdaContext(name));
  return { ...result, json: result.body ? JSON.parse(result.body) : undefined };
}

describe('context Lambdas (API Gateway HTTP API v2)', () => {
  it('adds, finds, lists and deletes a document, one function per route', async () => {
    const added = await call('context-add', 'POST', '/api/v1/context/add', {
      body: {
        source: 'handbook',
        documents: [{ fileName: 'leave.md', content: 'Employees get thirty days of paid leave every year.' }],
      },
    });
    expect(added.statusCode).toBe(201);
    expect(added.headers?.['content-type']).toContain('application/json');
    const documentId = added.json.contextIds[0];

    const found = await call('context-search', 'POST', '/api/v1/context/search', {
      body: { query: 'how many days of paid leave', similarity_threshold: 1, minimum_similarity_threshold: 0 },
    });
    expect(found.statusCode).toBe(202);
    expect(found.json.results[0]).toMatchObject({ documentId, fileName: 'leave.md' });

    const view = await call('context-view', 'GET', '/api/v1/context/view', { query: 'limit=10' });
    expect(view.statusCode).toBe(200);
    expect(view.json.context.map((record: { _id: string }) => record._id)).toContain(documentId);

    const docs = await call('context-view-docs', 'GET', '/api/v1/context/view/docs');
    expect(docs.statusCode).toBe(200);
    expect(docs.json.documents).toEqual([expect.objectContaining({ contextId: documentId, fileName: 'leave.md' })]);

    const deleted = await call('context-delete', 'POST', '/api/v1/context/delete', { body: { source: 'handbook' } });
    expect(deleted.statusCode).toBe(204);
    const after = await call('context-search', 'POST', '/api/v1/context/search', {
      body: { query: 'paid leave', similarity_threshold: 1, minimum_similarity_threshold: 0 },
    });
    expect(after.json.results).toEqual([]);
  });

  it('answers errors in the context envelope', async () => {
    const unauthenticated = await call('context-view', 'GET', '/api/v1/context/view', { auth: false });
    expect(unauthenticated.statusCode).toBe(401);
    expect(unauthenticated.json).toMatchObject({ error: 'authentication_error' });
    const invalid = await call('context-add', 'POST', '/api/v1/context/add', { body: { documents: [] } });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json).toMatchObject({ error: 'validation_error' });
  });

  it('answers a wrong method (API Gateway routes every method of its path here) with 405 and Allow', async () => {
    const cases = [
      ['context-add', 'GET', '/api/v1/context/add', 'POST'],
      ['context-search', 'PUT', '/api/v1/context/search', 'POST'],
      ['context-delete', 'DELETE', '/api/v1/context/delete', 'POST'],
      ['context-view', 'POST', '/api/v1/context/view', 'GET, HEAD'],
      ['context-view-docs', 'PATCH', '/api/v1/context/view/docs', 'GET, HEAD'],
    ] as const;
    for (const [name, method, path, allow] of cases) {
      const refused = await call(name, method, path, { auth: false });
      expect(refused.statusCode, `${method} ${path}`).toBe(405);
      expect(refused.headers?.allow, `${method} ${path}`).toBe(allow);
      expect(refused.json, `${method} ${path}`).toMatchObject({ error: 'method_not_allowed' });
    }
  });

  it('reads a base64-encoded body (what API Gateway sends for binary media types) byte for byte', async () => {
    const content = 'Le congé annuel est de trente jours. 年次休暇は三十日です。';
    const text = JSON.stringify({ source: 'manuel', documents: [{ fileName: 'congé.md', content }] });
    const event = {
      ...httpEvent({ method: 'POST', path: '/api/v1/context/add', headers: { authorization: `Bearer ${token}` } }),
      body: Buffer.from(text, 'utf8').toString('base64'),
      isBase64Encoded: true,
    };
    const added = await (handlers['context-add'] as ApiHandler)(event, lambdaContext('context-add'));
    expect(added.statusCode).toBe(201);
    const view = await call('context-view', 'GET', '/api/v1/context/view', { query: 'limit=50' });
    const texts = view.json.context
      .filter((record: { source: string }) => record.source === 'manuel')
      .map((record: { text: string }) => record.text);
    expect(texts).toContain(content);

    const broken = { ...event, body: Buffer.from('{"source": "manuel", ', 'utf8').toString('base64') };
    const refused = await (handlers['context-add'] as ApiHandler)(broken, lambdaContext('context-add'));
    expect(refused.statusCode).toBe(400);
    expect(JSON.parse(refused.body as string)).toMatchObject({ error: 'validation_error' });
    await call('context-delete', 'POST', '/api/v1/context/delete', { body: { source: 'manuel' } });
  });
});
