import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstreamStub, type UpstreamStub } from '../support/upstream-stub.ts';
import {
  ALL_SCOPES,
  endpointsOf,
  isAreaError,
  type SecurityHarness,
  startSecurityHarness,
  tokenFor,
} from './harness.ts';

// DESIGN.md section 7 limits on every endpoint (issue 8): a body over 6 MB is a 413 in the area's format whether or
// not it declares its length, a body just under passes the size check; each count limit is accepted at the limit
// and refused one past it with a 400 naming the field. Nothing is written by a refused request.

const MB = 1024 * 1024;
let h: SecurityHarness;
let stub: UpstreamStub;
let token: string;

beforeAll(async () => {
  stub = await startUpstreamStub();
  h = await startSecurityHarness();
  token = await tokenFor('lee', { scope: ALL_SCOPES });
});
afterAll(() => stub.close());

/** `body` padded with an ignored field to exactly `bytes` bytes of JSON. */
function padded(body: unknown, bytes: number): string {
  const base = JSON.stringify({ ...(body as object), padding: '' });
  return `${base.slice(0, -2)}${'p'.repeat(bytes - base.length)}"}`;
}

/** A request body sent as a stream: no Content-Length, so only counting the bytes can catch it. */
function streamed(text: string): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  return new ReadableStream({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + 256 * 1024));
      offset += 256 * 1024;
    },
  });
}

describe('413 for bodies over 6 MB on every endpoint', () => {
  it('with and without a Content-Length, in the area format, nothing written', async () => {
    const before = await h.itemCount();
    for (const endpoint of endpointsOf(stub.url).filter((e) => e.method === 'POST')) {
      const raw = padded(endpoint.body, 6 * MB + 1);
      const declared = await h.request('POST', endpoint.path, { token, raw });
      expect(declared.status, endpoint.name).toBe(413);
      expect(isAreaError(endpoint.area, 413, declared.text), `${endpoint.name}: ${declared.text}`).toBe(true);
      const chunked = await h.app.request(endpoint.path, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: streamed(raw),
        duplex: 'half',
      } as RequestInit);
      expect(chunked.status, `${endpoint.name} streamed`).toBe(413);
      expect(isAreaError(endpoint.area, 413, await chunked.text())).toBe(true);
    }
    expect(await h.itemCount()).toBe(before);
    expect(stub.requests).toHaveLength(0);
  });

  it('a body just under 6 MB passes the size check', async () => {
    const search = endpointsOf(stub.url)[1];
    const res = await h.request('POST', search?.path as string, { token, raw: padded(search?.body, 6 * MB - 1024) });
    expect(res.status, res.text.slice(0, 200)).toBe(202);
  });
});

describe('count and length limits: accepted at the limit, 400 one past it', () => {
  const doc = (i: number) => ({ content: `document number ${i}`, fileName: `d${i}.txt` });
  const band = { similarity_threshold: 1, minimum_similarity_threshold: 0 };
  const user = (content: string) => ({ role: 'user', content });
  const cases: [string, string, (n: number) => unknown, number, number, string][] = [
    [
      'documents per add',
      '/api/v1/context/add',
      (n) => ({ documents: Array.from({ length: n }, (_, i) => doc(i)) }),
      100,
      201,
      'documents',
    ],
    ['query length', '/api/v1/context/search', (n) => ({ query: 'q'.repeat(n), ...band }), 10_000, 202, 'query'],
    ['top_k', '/api/v1/context/search', (n) => ({ query: 'q', ...band, top_k: n }), 100, 202, 'top_k'],
    [
      'chat messages',
      '/api/v1/chat/generate/stream',
      (n) => ({ chat_history: Array.from({ length: n }, (_, i) => user(`m${i}`)) }),
      500,
      200,
      'chat_history',
    ],
  ];
  it.each(cases)('%s', async (_name, path, make, limit, okStatus, field) => {
    const atLimit = await h.request('POST', path, { token, body: make(limit) });
    expect(atLimit.status, atLimit.text.slice(0, 200)).toBe(okStatus);
    const before = await h.itemCount();
    const over = await h.request('POST', path, { token, body: make(limit + 1) });
    expect(over.status).toBe(400);
    expect(over.text).toContain(field);
    expect(await h.itemCount()).toBe(before);
  });

  it('view limit', async () => {
    expect((await h.request('GET', '/api/v1/context/view?limit=1000', { token })).status).toBe(200);
    const over = await h.request('GET', '/api/v1/context/view?limit=1001', { token });
    expect(over.status).toBe(400);
    expect(over.text).toContain('limit');
  });
});
