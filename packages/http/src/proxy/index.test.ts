import { describe, expect, it } from 'vitest';
import { bareApp } from '../test-app.ts';
import { modelPathOf, parseProxyPath, withTargetAsOneSegment } from './target.ts';

const path = (inner: string) => `/api/v1/proxy/${inner}/chat/completions`;

describe('parseProxyPath', () => {
  it.each([
    ['https://api.example.com/v1/sk-abc', 'https://api.example.com/v1'],
    ['https:/api.example.com/v1/sk-abc', 'https://api.example.com/v1'],
    ['https%3A%2F%2Fapi.example.com%2Fv1/sk-abc', 'https://api.example.com/v1'],
    ['https:%2F%2Fapi.example.com%2Fv1/sk-abc', 'https://api.example.com/v1'],
    ['https://api.example.com:8443/openai/v1/sk-abc', 'https://api.example.com:8443/openai/v1'],
  ])('reads %s', (inner, baseUrl) => {
    expect(parseProxyPath(path(inner))).toEqual({ kind: 'upstream', baseUrl, apiKey: 'sk-abc' });
  });

  it('decodes a percent-encoded key and recognises the default route', () => {
    expect(parseProxyPath(path('https://h/v1/sk%2Fa%2Bb'))).toMatchObject({ apiKey: 'sk/a+b' });
    expect(parseProxyPath(path('default'))).toEqual({ kind: 'default' });
  });

  it('reads the target before /responses and /models too', () => {
    const base = '/api/v1/proxy/https://h/v1/sk-abc';
    for (const endpoint of ['responses', 'models']) {
      expect(parseProxyPath(`${base}/${endpoint}`)).toEqual({
        kind: 'upstream',
        baseUrl: 'https://h/v1',
        apiKey: 'sk-abc',
      });
      expect(parseProxyPath(`/api/v1/proxy/default/${endpoint}`)).toEqual({ kind: 'default' });
    }
  });

  it('reads a retrieve-model path: the first /models/ after a base URL and a key, the id as written', () => {
    const prefix = '/api/v1/proxy/';
    expect(modelPathOf(`${prefix}default/models/memgate/default`)).toEqual({
      inner: 'default',
      rawId: 'memgate/default',
    });
    expect(modelPathOf(`${prefix}https://h/v1/sk-abc/models/models/gemini-2.0-flash`)).toEqual({
      inner: 'https://h/v1/sk-abc',
      rawId: 'models/gemini-2.0-flash',
    });
    // `https:/` alone is no base URL: the endpoint is the later /models/.
    expect(modelPathOf(`${prefix}https://models/sk/models/m`)).toMatchObject({
      inner: 'https://models/sk',
      rawId: 'm',
    });
    expect(parseProxyPath(`${prefix}https:/h/v1/sk-abc/models/a%2Fb`)).toEqual({
      kind: 'upstream',
      baseUrl: 'https://h/v1',
      apiKey: 'sk-abc',
    });
    expect(withTargetAsOneSegment(`${prefix}https://h/v1/sk-abc/models/a/b`)).toBe(
      `${prefix}${encodeURIComponent('https://h/v1')}/sk-abc/models/a/b`,
    );
    expect(modelPathOf(`${prefix}default/models/`)).toBeUndefined();
    expect(modelPathOf(`${prefix}https://h/v1/sk-abc/models`)).toBeUndefined();
  });

  it.each(['sk-only', 'api.example.com/sk-abc', 'https://h/v1/'])('refuses %s without echoing it', (inner) => {
    expect(() => parseProxyPath(path(inner))).toThrow(/proxy path must be/);
    try {
      parseProxyPath(path(inner));
    } catch (error) {
      expect((error as Error).message).not.toContain('sk-');
    }
  });
});

describe('a proxy path that is not a route', () => {
  const app = bareApp();
  const post = (path: string, method = 'POST') => app.request(path, { method, body: method === 'GET' ? null : '{}' });

  // The README's form with the key left out: the encoded base URL is the one segment before the endpoint.
  it.each([
    ['POST', `/api/v1/proxy/${encodeURIComponent('https://api.openai.com/v1')}/chat/completions`],
    ['POST', `/api/v1/proxy/${encodeURIComponent('https://api.openai.com/v1')}/responses`],
    ['GET', `/api/v1/proxy/${encodeURIComponent('https://api.openai.com/v1')}/models`],
    ['POST', '/api/v1/proxy/chat/completions'],
  ])('%s %s: 400 saying what the path must hold', async (method, path) => {
    const response = await post(path, method);
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { type: 'invalid_request_error', code: 'invalid_request', param: 'proxyUrl' },
    });
  });

  it('GET on a chat completions path: 405 naming POST (Allow), before any token check', async () => {
    const response = await post('/api/v1/proxy/default/chat/completions', 'GET');
    expect([response.status, response.headers.get('allow')]).toEqual([405, 'POST']);
    expect(await response.json()).toMatchObject({ error: { code: 'method_not_allowed' } });
  });

  it.each([
    ['POST', '/api/v1/proxy/default/chat/completion'],
    ['POST', `/api/v1/proxy/${encodeURIComponent('https://h/v1')}/sk-abc/embeddings`],
  ])('%s %s: still 404, no such route', async (method, path) => {
    const response = await post(path, method);
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'not_found' } });
  });
});

describe('proxy OpenAPI document', () => {
  const app = bareApp();

  it('lists both routes of each endpoint', async () => {
    const doc = (await (await app.request('/api/v1/openapi.json')).json()) as { paths: Record<string, unknown> };
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/proxy/{proxyUrl}/{target_api_key}/chat/completions',
        '/api/v1/proxy/default/chat/completions',
        '/api/v1/proxy/{proxyUrl}/{target_api_key}/responses',
        '/api/v1/proxy/default/responses',
        '/api/v1/proxy/{proxyUrl}/{target_api_key}/models',
        '/api/v1/proxy/default/models',
        '/api/v1/proxy/{proxyUrl}/{target_api_key}/models/{model}',
        '/api/v1/proxy/default/models/{model}',
      ]),
    );
  });

  // The routes are served checking their body only (index.ts, checkingBodyOnly); the document still declares all.
  it.each(['chat/completions', 'responses'])(
    "declares route A's path parameters and the switch headers of %s",
    async (endpoint) => {
      const doc = (await (await app.request('/api/v1/openapi.json')).json()) as {
        paths: Record<string, { post: { parameters: { name: string; in: string }[]; requestBody?: unknown } }>;
      };
      for (const path of [
        `/api/v1/proxy/{proxyUrl}/{target_api_key}/${endpoint}`,
        `/api/v1/proxy/default/${endpoint}`,
      ]) {
        const { parameters, requestBody } = doc.paths[path]?.post ?? { parameters: [] };
        const declared = parameters.map((parameter) => `${parameter.in}:${parameter.name}`);
        expect(declared).toEqual(
          expect.arrayContaining(['header:x-memgate-filter', 'header:x-memgate-context', 'header:x-memgate-store']),
        );
        if (path.includes('{proxyUrl}'))
          expect(declared).toEqual(expect.arrayContaining(['path:proxyUrl', 'path:target_api_key']));
        expect(requestBody).toBeDefined();
      }
    },
  );
});
