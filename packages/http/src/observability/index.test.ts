import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { createJsonLogger, redactSecrets, requestLog } from './index.ts';

function capture() {
  const lines: Record<string, unknown>[] = [];
  const logger = createJsonLogger({ level: 'debug', sink: (line) => lines.push(JSON.parse(line)) });
  return { lines, logger };
}

describe('request log', () => {
  it('logs one structured line per request with id, route pattern, status and latency', async () => {
    const { lines, logger } = capture();
    const app = new Hono();
    app.use(requestLog(logger));
    app.post('/api/v1/proxy/*', (c) => c.json({ ok: true }, 201));
    const key = 'sk-live-abcdefghijklmnop';
    const res = await app.request(`/api/v1/proxy/https%3A%2F%2Fapi.example.com%2Fv1/${key}/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJl',
        'x-request-id': 'req-1',
      },
    });
    expect(res.headers.get('x-request-id')).toBe('req-1');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({
      msg: 'request',
      requestId: 'req-1',
      method: 'POST',
      route: '/api/v1/proxy/*',
      status: 201,
    });
    expect(typeof lines[0]?.latencyMs).toBe('number');
    expect(JSON.stringify(lines)).not.toContain(key);
    expect(JSON.stringify(lines)).not.toContain('eyJhbGciOiJIUzI1NiJ9');
  });

  it('makes up a request id when the caller sends none or an unsafe one', async () => {
    const { lines, logger } = capture();
    const app = new Hono();
    app.use(requestLog(logger));
    app.get('/x', (c) => c.text('x'));
    const res = await app.request('/x', { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(lines[0]?.requestId).toBe(res.headers.get('x-request-id'));
  });

  it('puts the id on a response the handler built itself, even one with immutable headers', async () => {
    const { lines, logger } = capture();
    const app = new Hono();
    app.use(requestLog(logger));
    app.get('/own', () => new Response('own', { status: 202 }));
    app.get('/fetched', () => Response.redirect('https://example.com/', 302)); // headers guarded "immutable"
    app.get('/forwarded', () => new Response('up', { headers: { 'x-request-id': 'req_upstream' } }));
    for (const path of ['/own', '/fetched']) {
      const res = await app.request(path, { headers: { 'x-request-id': `caller${path.slice(1)}` } });
      expect(res.headers.get('x-request-id')).toBe(`caller${path.slice(1)}`);
    }
    const own = await app.request('/own');
    expect(await own.text()).toBe('own');
    expect(own.status).toBe(202);
    expect(own.headers.get('x-request-id')).toBe(lines.at(-1)?.requestId);
    const forwarded = await app.request('/forwarded', { headers: { 'x-request-id': 'caller' } });
    expect(forwarded.headers.get('x-request-id')).toBe('req_upstream');
  });
});

describe('redactSecrets', () => {
  it.each([
    ['Authorization: Bearer abc.def.ghi', 'abc.def.ghi'],
    ['authorization: bearer abc.def.ghi', 'abc.def.ghi'],
    ['token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.sig here', 'eyJhbGciOiJIUzI1NiJ9'],
    ['key sk-proj-1234567890abcdef leaked', 'sk-proj-1234567890abcdef'],
    ['pinecone pcsk_123456789_abcdefgh', 'pcsk_123456789_abcdefgh'],
    ['POST /api/v1/proxy/https:/api.x.com/v1/secretkey123/chat/completions', 'secretkey123'],
  ])('removes the secret from %s', (text, secret) => {
    expect(redactSecrets(text)).not.toContain(secret);
  });

  it('leaves ordinary text alone', () => {
    expect(redactSecrets('search took 3 ms for user alice')).toBe('search took 3 ms for user alice');
  });

  it('redacts every field of a log line, one that replaces its time or message too, and leaves the fields as given', () => {
    const { lines, logger } = capture();
    const fields = { time: 'Bearer sk-timekey-123456789', msg: 'key sk-msgkey-123456789', status: 200, ok: true };
    logger.info('request', fields);
    expect(lines[0]).toEqual({ time: '[redacted]', level: 'info', msg: 'key [redacted]', status: 200, ok: true });
    expect(fields.time).toBe('Bearer sk-timekey-123456789');
  });

  it('redacts nested fields of a log line', () => {
    const { lines, logger } = capture();
    logger.error('upstream failed', { detail: { url: 'https://x.com', auth: 'Bearer sk-abcdefghijklmnopq' } });
    expect(JSON.stringify(lines)).not.toContain('sk-abcdefghijklmnopq');
  });
});
