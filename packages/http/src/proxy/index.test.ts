import { describe, expect, it } from 'vitest';
import { bareApp } from '../test-app.ts';
import { parseProxyPath } from './target.ts';

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

  it.each(['sk-only', 'api.example.com/sk-abc', 'https://h/v1/'])('refuses %s without echoing it', (inner) => {
    expect(() => parseProxyPath(path(inner))).toThrow(/proxy path must be/);
    try {
      parseProxyPath(path(inner));
    } catch (error) {
      expect((error as Error).message).not.toContain('sk-');
    }
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
