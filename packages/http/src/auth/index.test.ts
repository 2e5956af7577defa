import { OpenAPIHono } from '@hono/zod-openapi';
import { SignJWT, UnsecuredJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { TEST_SECRET, tokenFor } from '../../../../test/support/tokens.ts';
import { areaErrorHandler } from '../errors/index.ts';
import { authenticate, createTokenVerifier } from './index.ts';

const verifier = createTokenVerifier({ kind: 'hs256', secret: TEST_SECRET });

function appFor(unusableUserStatus: 401 | 402 = 401) {
  const app = new OpenAPIHono();
  app.onError(areaErrorHandler('context'));
  app.use('/read', authenticate({ verifier, scope: 'context:read', unusableUserStatus }));
  app.get('/read', (c) => c.json({ user: c.get('principal' as never) }));
  return app;
}

async function call(token: string | undefined, status: 401 | 402 = 401) {
  const res = await appFor(status).request('/read', {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('authenticate', () => {
  it('accepts a valid token and exposes the principal from its claims', async () => {
    const { status, body } = await call(await tokenFor('alice', { orgs: ['acme'], scope: 'context:read' }));
    expect(status).toBe(200);
    expect(body.user).toMatchObject({ userId: 'alice', orgs: ['acme'] });
  });

  it('accepts a single org_id claim as the organization list', async () => {
    const token = await new SignJWT({ org_id: 'acme', scope: 'context:read' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(TEST_SECRET));
    const { body } = await call(token);
    expect(body.user).toMatchObject({ orgs: ['acme'] });
  });

  it.each([
    ['no header', undefined],
    ['garbage', 'not-a-jwt'],
    ['wrong signature', 'wrong'],
    ['expired', 'expired'],
    ['alg none', 'none'],
  ])('answers 401 in the area format for %s', async (_label, kind) => {
    let token: string | undefined = kind;
    if (kind === 'wrong') token = await tokenFor('alice', { secret: 'another-secret-another-secret-0000' });
    if (kind === 'expired') token = await tokenFor('alice', { expiresIn: Math.floor(Date.now() / 1000) - 60 });
    if (kind === 'none') token = new UnsecuredJWT({ scope: 'context:read' }).setSubject('alice').encode();
    const { status, body } = await call(token);
    expect(status).toBe(401);
    expect(body).toEqual({ response: expect.any(String), error: 'authentication_error' });
  });

  it('answers 403 when the scope is missing', async () => {
    const { status, body } = await call(await tokenFor('alice', { scope: 'context:write' }));
    expect(status).toBe(403);
    expect(body.error).toBe('permission_error');
  });

  it('answers 402 for an unusable sub only where the route asks for it', async () => {
    const token = await tokenFor('bad user/id', { scope: 'context:read' });
    expect((await call(token, 402)).status).toBe(402);
    expect((await call(token, 402)).body.error).toBe('invalid_user');
    expect((await call(token, 401)).status).toBe(401);
  });
});
