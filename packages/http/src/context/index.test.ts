import { OpenAPIHono } from '@hono/zod-openapi';
import type { ContextStore } from '@memgate/core';
import { describe, expect, it } from 'vitest';
import { TEST_SECRET, tokenFor } from '../../../../test/support/tokens.ts';
import { createTokenVerifier } from '../auth/index.ts';
import { registerDocs } from '../docs/index.ts';
import { silentLogger } from '../observability/index.ts';
import { createContextApp } from './index.ts';

const unused = () => Promise.reject(new Error('not called'));

function appWith(store: Partial<ContextStore>) {
  const app = new OpenAPIHono();
  const full = { add: unused, search: unused, delete: unused, view: unused, viewDocs: unused, ...store };
  app.route(
    '/',
    createContextApp({
      verifier: createTokenVerifier({ kind: 'hs256', secret: TEST_SECRET }),
      logger: silentLogger,
      store: full as ContextStore,
    }),
  );
  registerDocs(app);
  return app;
}

describe('context routes', () => {
  it('publish the five routes in the OpenAPI document', async () => {
    const doc = await (await appWith({}).request('/api/v1/openapi.json')).json();
    for (const path of ['add', 'search', 'delete', 'view', 'view/docs']) {
      expect(doc.paths).toHaveProperty([`/api/v1/context/${path}`]);
    }
    expect(doc.paths['/api/v1/context/add'].post.requestBody.content['application/json'].schema).toBeDefined();
  });

  it('hide an internal failure behind a 500 in the context format', async () => {
    const app = appWith({ viewDocs: () => Promise.reject(new Error('secret detail')) });
    const response = await app.request('/api/v1/context/view/docs', {
      headers: { authorization: `Bearer ${await tokenFor('u1', { scope: 'context:read' })}` },
    });
    expect(response.status).toBe(500);
    const body = await response.json();
    expect(body).toEqual({ response: 'internal server error', error: 'internal_error' });
  });

  it('read JSON without a content-type header and convert "false" for chained', async () => {
    let seen: unknown;
    const app = appWith({
      add: async (_principal, input) => {
        seen = input.chained;
        return { contextIds: [], documents: [] };
      },
    });
    const response = await app.request('/api/v1/context/add', {
      method: 'POST',
      headers: { authorization: `Bearer ${await tokenFor('u1', { scope: 'context:write' })}` },
      // Bytes: a string body would be given `text/plain` by the Request itself.
      body: new TextEncoder().encode(JSON.stringify({ documents: [{ content: 'x' }], chained: 'false' })),
    });
    expect(response.status).toBe(201);
    expect(seen).toBe(false);
  });

  // Clients that keep unset fields as null (pydantic's model_dump, openai-python's None) send every optional field.
  it('take an optional field sent as null as left out: add, its documents, search and delete', async () => {
    const seen: Record<string, unknown> = {};
    const app = appWith({
      add: async (_principal, input) => {
        seen.add = input;
        return { contextIds: [], documents: [] };
      },
      search: async (_principal, input) => {
        seen.search = input;
        return [];
      },
      delete: async (_principal, input) => {
        seen.delete = input;
      },
    });
    const token = await tokenFor('u1', { scope: 'context:write context:read context:delete' });
    const post = (path: string, body: unknown) =>
      app.request(`/api/v1/context/${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const unset = { user_id: null, organization_id: null, scope: null, metadata: null };
    const document = { content: 'x', fileName: null, fileType: null, fileSize: null, lastModified: null };
    const added = await post('add', { ...unset, documents: [document], source: null, context_type: null, tags: null });
    expect(added.status, await added.text()).toBe(201);
    expect(seen.add).toEqual({ organization_id: null, documents: [{ content: 'x' }], chained: false });
    const band = { query: 'x', similarity_threshold: 1, minimum_similarity_threshold: 0 };
    const searched = await post('search', { ...unset, ...band, top_k: null });
    expect(searched.status, await searched.text()).toBe(202);
    expect(seen.search).toEqual(band);
    const deleted = await post('delete', { ...unset, source: 's', by_doc: null, by_id: null });
    expect(deleted.status, await deleted.text()).toBe(204);
    // A required field sent as null is still missing.
    expect(await (await post('search', { ...band, query: null })).json()).toEqual({
      response: 'query: is required',
      error: 'validation_error',
    });
  });

  it.each([
    ['text/plain;charset=UTF-8', 'text/plain'],
    ['application/x-www-form-urlencoded', 'application/x-www-form-urlencoded'],
  ])('refuse a body declared as %s with 415 in the context format, storing nothing', async (type, shown) => {
    const app = appWith({ add: () => Promise.reject(new Error('must not be called')) });
    const response = await app.request('/api/v1/context/add', {
      method: 'POST',
      headers: { authorization: `Bearer ${await tokenFor('u1', { scope: 'context:write' })}`, 'content-type': type },
      body: JSON.stringify({ documents: [{ content: 'x' }] }),
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({
      response: `Content-Type ${shown} is not JSON; send the body as application/json`,
      error: 'unsupported_media_type',
    });
  });

  it('read a body declared as a JSON type with parameters or a +json suffix', async () => {
    const app = appWith({ add: async () => ({ contextIds: [], documents: [] }) });
    for (const type of ['application/json; charset=utf-8', 'Application/JSON', 'application/merge-patch+json']) {
      const response = await app.request('/api/v1/context/add', {
        method: 'POST',
        headers: { authorization: `Bearer ${await tokenFor('u1', { scope: 'context:write' })}`, 'content-type': type },
        body: JSON.stringify({ documents: [{ content: 'x' }] }),
      });
      expect(response.status, type).toBe(201);
    }
  });

  it.each([
    [
      'POST',
      '/api/v1/context/add',
      { chained: 'maybe' },
      'chained: must be true or false (or the text "true" or "false")',
    ],
    [
      'POST',
      '/api/v1/context/add',
      { metadata: { modalities: 5 } },
      'metadata.modalities: must be an array of strings or a comma-separated string',
    ],
    [
      'POST',
      '/api/v1/context/add',
      { metadata: { tags: ['a', 2] } },
      'metadata.tags: must be an array of strings or a comma-separated string',
    ],
    [
      'POST',
      '/api/v1/context/search',
      { similarity_threshold: 1, minimum_similarity_threshold: 0 },
      'query: is required',
    ],
    ['GET', '/api/v1/context/view?limit=ten', undefined, 'limit: must be an integer from 1 to 1000'],
    ['GET', '/api/v1/context/view/docs?limit=ten', undefined, 'limit: must be an integer from 1 to 1000'],
  ])('%s %s %j: 400 saying what the field accepts', async (method, path, fields, message) => {
    const app = appWith({});
    const response = await app.request(path, {
      method,
      headers: {
        authorization: `Bearer ${await tokenFor('u1', { scope: 'context:write context:read' })}`,
        ...(fields ? { 'content-type': 'application/json' } : {}),
      },
      ...(fields ? { body: JSON.stringify({ documents: [{ content: 'x' }], ...fields }) } : {}),
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual({ response: message, error: 'validation_error' });
  });
});
