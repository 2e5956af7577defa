import { once } from 'node:events';
import { type IncomingMessage, request } from 'node:http';
import type { AddressInfo, Server } from 'node:net';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { afterAll, describe, expect, it } from 'vitest';
import { principalOf } from '../auth/middleware.ts';
import { areaErrorHandler } from '../errors/index.ts';
import { nodeBindingsOf } from '../request/index.ts';
import { createJsonLogger, requestLog } from './index.ts';

// The request log on the local server (Hono's Node adapter): the id goes on the Node response and the line is
// written once the response has been.
const lines: Record<string, unknown>[] = [];
/** For each logged line: whether its response had been written to the socket when the line was. */
const writtenFirst: boolean[] = [];
let lineArrived: () => void = () => {};
let served: { writableEnded: boolean } | undefined;
const logger = createJsonLogger({
  level: 'info',
  sink: (line) => {
    lines.push(JSON.parse(line));
    writtenFirst.push(served?.writableEnded === true);
    lineArrived();
  },
});
const app = new Hono();
app.onError(areaErrorHandler('proxy'));
app.use(requestLog(logger));
app.use(async (c, next) => {
  served = nodeBindingsOf(c)?.outgoing;
  await next();
});
app.get('/json', (c) => c.json({ ok: true }, 201));
app.get('/own', () => new Response('own', { status: 202, headers: { 'content-type': 'text/plain' } }));
app.get('/forwarded', () => new Response('up', { headers: { 'x-request-id': 'req_upstream' } }));
app.get('/who', async (c) => {
  const verifier = async (token: string) => ({ userId: token, orgs: [], scopes: new Set<string>() });
  const principal = await principalOf(c, { verifier });
  return c.text(principal.userId);
});

const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as unknown as Server;
if (!server.listening) await once(server, 'listening');
const { port } = server.address() as AddressInfo;
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

/** A GET, and the request log's line for it (awaited: it is written after the response). */
async function get(path: string, headers: Record<string, string> = {}) {
  const logged = new Promise<void>((resolve) => {
    lineArrived = resolve;
  });
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers });
  const text = await response.text();
  await logged;
  return { response, text, line: lines.at(-1), writtenFirst: writtenFirst.at(-1) };
}

describe('request log on the Node adapter', () => {
  it("echoes the caller's id, or a new one, on every kind of response, and logs it after the response", async () => {
    const json = await get('/json', { 'x-request-id': 'req-1' });
    expect(json.response.status).toBe(201);
    expect(json.response.headers.get('x-request-id')).toBe('req-1');
    expect(json.line).toMatchObject({ msg: 'request', requestId: 'req-1', method: 'GET', route: '/json', status: 201 });
    expect(typeof json.line?.latencyMs).toBe('number');
    expect(json.writtenFirst).toBe(true);

    const own = await get('/own', { 'x-request-id': 'bad id with spaces' });
    expect(own.text).toBe('own');
    expect(own.response.status).toBe(202);
    expect(own.response.headers.get('content-type')).toBe('text/plain');
    expect(own.response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(own.line?.requestId).toBe(own.response.headers.get('x-request-id'));
    expect(own.writtenFirst).toBe(true);
  });

  it('leaves the id a response carries (a forwarded upstream one)', async () => {
    const forwarded = await get('/forwarded', { 'x-request-id': 'caller' });
    expect(forwarded.response.headers.get('x-request-id')).toBe('req_upstream');
  });

  it('reads a repeated header as all its values, as the WHATWG Headers did: two tokens are no token', async () => {
    const one = await get('/who', { authorization: 'Bearer alice' });
    expect(one.text).toBe('alice');
    // fetch joins a repeated header itself; node:http sends each value as its own field.
    const req = request({ host: '127.0.0.1', port, path: '/who', method: 'GET' });
    req.setHeader('authorization', ['Bearer alice', 'Bearer mallory']);
    req.end();
    const [response] = (await once(req, 'response')) as [IncomingMessage];
    response.resume();
    expect(response.statusCode).toBe(401);
  });
});
