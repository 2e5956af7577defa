import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { TEST_SECRET } from '../../../../test/support/tokens.ts';
import { createTokenVerifier } from './verifier.ts';

const secret = new TextEncoder().encode(TEST_SECRET);
const START = Date.UTC(2026, 0, 1);

function sign(claims: { exp?: number; scope?: string }, key: Uint8Array = secret): Promise<string> {
  const jwt = new SignJWT({ scope: claims.scope ?? 'context:read' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject('alice')
    .setIssuedAt(START / 1000);
  if (claims.exp !== undefined) jwt.setExpirationTime(claims.exp);
  return jwt.sign(key);
}

describe('token verifier: required claims', () => {
  it('refuses a token without exp, which would never expire', async () => {
    const verify = createTokenVerifier({ kind: 'hs256', secret: TEST_SECRET, now: () => START });
    await expect(verify(await sign({}))).rejects.toMatchObject({
      kind: 'authentication',
      message: "token has no 'exp' claim",
    });
  });

  it("lets an empty sub through to the route's usable-user check, and refuses a missing one", async () => {
    const verify = createTokenVerifier({ kind: 'hs256', secret: TEST_SECRET, now: () => START });
    const empty = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('')
      .setExpirationTime(START / 1000 + 60)
      .sign(secret);
    await expect(verify(empty)).resolves.toMatchObject({ userId: '' });
    const none = await new SignJWT({})
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(START / 1000 + 60)
      .sign(secret);
    await expect(verify(none)).rejects.toMatchObject({ kind: 'authentication', message: "token has no 'sub' claim" });
  });
});

describe('token verifier: remembering verified tokens', () => {
  it('keeps accepting a verified token only until its exp, then refuses it as expired', async () => {
    let now = START;
    const verify = createTokenVerifier({ kind: 'hs256', secret: TEST_SECRET, now: () => now });
    const token = await sign({ exp: START / 1000 + 60 });
    await expect(verify(token)).resolves.toMatchObject({ userId: 'alice' });
    now = START + 59_000;
    await expect(verify(token)).resolves.toMatchObject({ userId: 'alice' });
    now = START + 60_000;
    await expect(verify(token)).rejects.toMatchObject({ kind: 'authentication', message: 'token has expired' });
  });

  it('refuses a forged variant of a token it has already accepted', async () => {
    const verify = createTokenVerifier({ kind: 'hs256', secret: TEST_SECRET, now: () => START });
    const genuine = await sign({ exp: START / 1000 + 3600 });
    await verify(genuine);
    const forged = await sign({ exp: START / 1000 + 3600, scope: 'context:admin' }, new Uint8Array(32));
    await expect(verify(forged)).rejects.toMatchObject({ message: 'token signature is not valid' });
    const [header, , signature] = genuine.split('.');
    const payload = Buffer.from(JSON.stringify({ sub: 'mallory', scope: 'context:admin' })).toString('base64url');
    await expect(verify(`${header}.${payload}.${signature}`)).rejects.toMatchObject({ kind: 'authentication' });
  });

  it('gives every request its own principal: changing one does not change the next', async () => {
    const verify = createTokenVerifier({ kind: 'hs256', secret: TEST_SECRET, now: () => START });
    const token = await sign({ exp: START / 1000 + 3600 });
    const first = await verify(token);
    // The types say read-only; code that casts that away still cannot reach the next request's principal.
    (first.scopes as Set<string>).add('context:admin');
    (first.orgs as string[]).push('acme');
    const second = await verify(token);
    expect([...second.scopes]).toEqual(['context:read']);
    expect(second.orgs).toEqual([]);
  });
});

describe("token verifier: the caller's organizations", () => {
  const verify = createTokenVerifier({ kind: 'hs256', secret: TEST_SECRET, now: () => START });
  const tokenWith = (claims: Record<string, unknown>) =>
    new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('alice')
      .setExpirationTime(START / 1000 + 60)
      .sign(secret);

  it('reads orgs as an array, org_id as one organization, and both together', async () => {
    await expect(verify(await tokenWith({ orgs: ['acme', 'beta'] }))).resolves.toMatchObject({
      orgs: ['acme', 'beta'],
    });
    await expect(verify(await tokenWith({ org_id: 'acme' }))).resolves.toMatchObject({ orgs: ['acme'] });
    await expect(verify(await tokenWith({ orgs: ['acme'], org_id: 'beta' }))).resolves.toMatchObject({
      orgs: ['acme', 'beta'],
    });
    await expect(verify(await tokenWith({ orgs: null }))).resolves.toMatchObject({ orgs: [] });
  });

  it.each([
    ['orgs as a string', { orgs: 'acme' }, 'orgs'],
    ['orgs with an entry that is not a string', { orgs: ['acme', 7] }, 'orgs'],
    ['orgs with an empty entry', { orgs: ['acme', ''] }, 'orgs'],
    ['org_id that is not a string', { org_id: ['acme'] }, 'org_id'],
  ])('refuses a token with %s rather than serve it without those organizations', async (_, claims, claim) => {
    await expect(verify(await tokenWith(claims))).rejects.toMatchObject({
      kind: 'authentication',
      code: 'invalid_token',
      message: expect.stringContaining(`token claim '${claim}' must be`),
    });
  });
});
