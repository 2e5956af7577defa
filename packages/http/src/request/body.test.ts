import { once } from 'node:events';
import { request as httpRequest } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { areaErrorHandler, limitBody } from '../errors/index.ts';
import { readBodyText } from './body.ts';
import { clientSignalOf } from './node.ts';

const LIMIT = 64 * 1024;
const signals: AbortSignal[] = [];
let releaseSlow: () => void = () => {};

const app = new Hono();
app.onError(areaErrorHandler('proxy'));
app.post('/echo', limitBody(LIMIT), async (c) => {
  const text = await readBodyText(c, LIMIT);
  // The Node adapter builds its whole WHATWG Request (and a web stream over the body) on first use of `body`,
  // `signal`, `text()`...: it keeps it under a symbol of that name.
  const built = Object.getOwnPropertySymbols(c.req.raw).some((symbol) => symbol.description === 'requestCache');
  return c.json({ text, again: await readBodyText(c, LIMIT), built });
});
app.post('/slow', limitBody(LIMIT), async (c) => {
  await readBodyText(c, LIMIT);
  signals.push(clientSignalOf(c));
  await new Promise<void>((resolve) => {
    releaseSlow = resolve;
  });
  return c.text('late');
});
app.post('/quick', async (c) => {
  signals.push(clientSignalOf(c));
  return c.text('done');
});

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as unknown as Server;
if (!server.listening) await once(server, 'listening');
const { port } = server.address() as AddressInfo;
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** POSTs `pieces` one write each: chunked unless `length` is declared. */
async function post(path: string, pieces: (string | Buffer)[], length?: number) {
  const req = httpRequest({
    host: '127.0.0.1',
    port,
    path,
    method: 'POST',
    // A fresh connection each: after a refused body, what the client still sends is not a next request.
    agent: false,
    headers: { 'content-type': 'application/json', ...(length === undefined ? {} : { 'content-length': length }) },
  });
  const answered = once(req, 'response') as Promise<[NodeJS.ReadableStream & { statusCode: number }]>;
  req.on('error', () => {}); // the server may close before the whole body is sent (a refused body)
  for (const piece of pieces) req.write(piece);
  req.end();
  const [response] = await answered;
  let text = '';
  for await (const chunk of response) text += chunk;
  return { status: response.statusCode, text };
}

describe('the request body on the local server (Hono Node adapter)', () => {
  it('is read once from the Node request, decoded as Request.text() decodes it, without building a Request', async () => {
    const text = '{"q":"naïve café ☕ — 𝄞 music"}';
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text)]);
    // Split inside multi-byte characters, in several writes.
    const pieces = [bytes.subarray(0, 9), bytes.subarray(9, 27), bytes.subarray(27)];
    const res = await post('/echo', pieces);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text)).toEqual({ text, again: text, built: false });
  });

  it('refuses a declared length over the limit with 413 in the area format', async () => {
    const res = await post('/echo', ['x'], LIMIT + 1);
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text).error).toMatchObject({ code: 'payload_too_large' });
  });

  it('refuses a chunked body as it passes the limit with 413, and takes one at the limit', async () => {
    const piece = 'y'.repeat(16 * 1024);
    const over = await post('/echo', [piece, piece, piece, piece, 'z']);
    expect(over.status).toBe(413);
    expect(JSON.parse(over.text).error).toMatchObject({ code: 'payload_too_large' });
    const at = await post('/echo', [piece, piece, piece, piece]);
    expect(at.status).toBe(200);
    expect(JSON.parse(at.text).text).toHaveLength(LIMIT);
  });

  it('gives a client signal that aborts when the client goes away first, and not after an answer', async () => {
    const quick = await post('/quick', ['{}']);
    expect(quick.text).toBe('done');
    const req = httpRequest({ host: '127.0.0.1', port, path: '/slow', method: 'POST', agent: false });
    req.on('error', () => {});
    req.end('{}');
    await expect.poll(() => signals.length).toBe(2);
    const [finished, abandoned] = signals as [AbortSignal, AbortSignal];
    expect(abandoned.aborted).toBe(false);
    const aborted = once(abandoned, 'abort');
    req.destroy();
    await aborted;
    expect(abandoned.reason).toBe('Client connection prematurely closed.');
    releaseSlow();
    expect(finished.aborted).toBe(false);
  });
});
