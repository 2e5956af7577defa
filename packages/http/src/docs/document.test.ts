import { SCOPES } from '@memgate/core';
import { describe, expect, it } from 'vitest';
import { refsOf } from '../../../../test/support/openapi-refs.ts';
import { tokenFor } from '../../../../test/support/tokens.ts';
import { type AppDeps, createApp } from '../app.ts';
import { createTokenVerifier } from '../auth/index.ts';
import { silentLogger } from '../observability/index.ts';
import { bareApp } from '../test-app.ts';
import { API_ROUTES, apiDocument } from './document.ts';

// The apps declare their routes with `app.openapi`; a runtime that serves only the docs (the AWS docs function)
// builds the document from API_ROUTES. Both must describe the same API, and the API must serve what it describes.

const app = bareApp();
const SECRET = 'x'.repeat(40); // bareApp's

type Doc = ReturnType<typeof apiDocument>;
const served = async () => (await (await app.request('/api/v1/openapi.json')).json()) as Doc;

describe('the OpenAPI document', () => {
  it('is the same whether built from the served apps or from the route list', async () => {
    expect(await served()).toEqual(apiDocument());
    const operations = Object.values(apiDocument().paths ?? {}).flatMap((item) => Object.keys(item));
    expect(operations).toHaveLength(API_ROUTES.length);
  });

  it('resolves every reference, and gives every body a schema with its fields', () => {
    const doc = apiDocument();
    const schemas = doc.components?.schemas ?? {};
    for (const ref of refsOf(doc)) {
      expect(ref).toMatch(/^#\/components\/schemas\//);
      expect(schemas, ref).toHaveProperty([ref.split('/').at(-1) as string]);
    }
    for (const [path, item] of Object.entries(doc.paths ?? {})) {
      const post = (item as { post?: { requestBody?: { content: Record<string, { schema: { $ref?: string } }> } } })
        .post;
      if (!post) continue;
      const ref = post.requestBody?.content['application/json']?.schema.$ref;
      expect(ref, path).toBeDefined();
      expect(
        Object.keys((schemas[ref?.split('/').at(-1) ?? ''] as { properties?: object }).properties ?? {}),
        path,
      ).not.toHaveLength(0);
    }
  });

  it('lists only routes the API serves (each refuses a request without a token, none is unknown)', async () => {
    for (const [path, item] of Object.entries(apiDocument().paths ?? {})) {
      const url = path
        .replace('{proxyUrl}', encodeURIComponent('https://api.example.com/v1'))
        .replace('{target_api_key}', 'sk-test')
        .replace('{replaySessionID}', 'r1');
      for (const method of Object.keys(item)) {
        const response = await app.request(url, { method: method.toUpperCase() });
        expect(response.status, `${method} ${path}`).toBe(401);
      }
    }
  });

  it("names the scope each operation needs (the one its 403 names) in its summary or its 403's description", async () => {
    for (const [path, item] of Object.entries(apiDocument().paths ?? {})) {
      const url = path
        .replace('{proxyUrl}', encodeURIComponent('https://api.example.com/v1'))
        .replace('{target_api_key}', 'sk-test')
        .replace('{replaySessionID}', 'r1');
      for (const [method, operation] of Object.entries(item as Record<string, OperationText>)) {
        // A token with every scope but one: the one whose absence is refused is the one the route needs.
        let needed: string | undefined;
        for (const scope of SCOPES) {
          const token = await tokenFor('alice', { scope: SCOPES.filter((s) => s !== scope).join(' '), secret: SECRET });
          const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
          const response = await app.request(url, {
            method: method.toUpperCase(),
            headers,
            body: method === 'get' ? null : '{}',
          });
          if (response.status === 403) needed = scope;
        }
        expect(needed, `${method} ${path}`).toBeDefined();
        const said = `${operation.summary} ${operation.responses?.[403]?.description ?? ''}`;
        expect(said, `${method} ${path}`).toContain(needed as string);
      }
    }
  });

  it('gives every request body an example the route accepts as it stands (the page\'s "Try it")', async () => {
    const token = await tokenFor('alice', { scope: SCOPES.join(' '), secret: SECRET });
    // bareApp with the default model's id, which route B checks before it calls the (absent) model.
    const app = createApp({
      verifier: createTokenVerifier({ kind: 'hs256', secret: SECRET }),
      logger: silentLogger,
      context: {},
      proxy: { defaultModelId: 'memgate/default' },
      chat: {},
    } as unknown as AppDeps);
    for (const [path, item] of Object.entries(apiDocument().paths ?? {})) {
      const url = path
        .replace('{proxyUrl}', encodeURIComponent('https://api.example.com/v1'))
        .replace('{target_api_key}', 'sk-test');
      for (const [method, operation] of Object.entries(item as Record<string, OperationText>)) {
        const media = operation.requestBody?.content?.['application/json'];
        if (!operation.requestBody) continue;
        expect(media?.example, `${method} ${path}`).toBeDefined();
        const response = await app.request(url, {
          method: method.toUpperCase(),
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify(media?.example),
        });
        // bareApp has no services: a body that passed every check fails there (500), one that did not is a 400.
        expect(response.status, `${method} ${path}: ${await response.text()}`).toBe(500);
      }
    }
  });
});

type OperationText = {
  summary?: string;
  responses?: Record<string, { description?: string }>;
  requestBody?: { content?: Record<string, { example?: unknown }> };
};
