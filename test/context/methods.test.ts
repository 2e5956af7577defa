import { beforeAll, describe, expect, it } from 'vitest';
import { createContextHarness } from '../support/context-app.ts';
import { createMemoryIndex } from '../support/memory-ports.ts';
import { tokenFor } from '../support/tokens.ts';

// How the context routes answer a method or path they do not serve (405 with Allow, 404), in the context envelope.

let h: Awaited<ReturnType<typeof createContextHarness>>;
let alice: string;

beforeAll(async () => {
  h = await createContextHarness(createMemoryIndex().index);
  alice = await tokenFor('alice', { scope: 'context:read context:write context:delete' });
});

describe('methods', () => {
  it.each([
    ['GET', 'add', 'POST'],
    ['PUT', 'search', 'POST'],
    ['DELETE', 'delete', 'POST'],
    ['POST', 'view', 'GET, HEAD'],
    ['PATCH', 'view/docs', 'GET, HEAD'],
  ])('%s on %s is a 405 naming the methods it takes (Allow), in the context envelope', async (method, route, allow) => {
    const response = await h.app.request(`/api/v1/context/${route}`, {
      method,
      headers: { authorization: `Bearer ${alice}`, 'content-type': 'application/json' },
      ...(method === 'GET' ? {} : { body: '{}' }),
    });
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe(allow);
    expect(await response.json()).toEqual({
      response: `${method} is not allowed on /api/v1/context/${route}; use ${allow}`,
      error: 'method_not_allowed',
    });
  });

  it('still answers 404 for a path that is no route, and HEAD on a GET route as GET', async () => {
    const missing = await h.app.request('/api/v1/context/viewz', { headers: { authorization: `Bearer ${alice}` } });
    expect(missing.status).toBe(404);
    const head = await h.app.request('/api/v1/context/view', {
      method: 'HEAD',
      headers: { authorization: `Bearer ${alice}` },
    });
    expect(head.status).toBe(200);
  });
});
