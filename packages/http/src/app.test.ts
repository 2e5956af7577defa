import { describe, expect, it } from 'vitest';
import { bareApp } from './test-app.ts';

const app = bareApp();

describe('the service app', () => {
  it('answers /health without a token', async () => {
    const res = await app.request('/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('answers unknown routes with a JSON 404 in the area format', async () => {
    const context = await app.request('/api/v1/context/nope');
    expect(context.status).toBe(404);
    expect(await context.json()).toMatchObject({ error: 'not_found' });
    const proxy = await app.request('/api/v1/proxy/nope', { method: 'POST' });
    expect(proxy.status).toBe(404);
    expect(await proxy.json()).toMatchObject({ error: { type: 'not_found_error' } });
  });

  it('answers a context route asked with another method with 405 and Allow, in the whole app too', async () => {
    const res = await app.request('/api/v1/context/search', { method: 'GET' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('POST');
    expect(await res.json()).toMatchObject({ error: 'method_not_allowed' });
  });

  it('serves an OpenAPI 3.1 document and a reference page', async () => {
    const doc = (await (await app.request('/api/v1/openapi.json')).json()) as { openapi: string };
    expect(doc.openapi).toBe('3.1.0');
    const page = await app.request('/docs');
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(await page.text()).toContain('memgate API');
  });
});
