import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createTokenVerifier } from '@memgate/http';
import { exportJWK, generateKeyPair, type JWTPayload, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstreamStub, type UpstreamStub } from '../support/upstream-stub.ts';
import {
  ALL_SCOPES,
  endpointsOf,
  isAreaError,
  type SecurityHarness,
  startSecurityHarness,
  TEST_SECRET,
  tokenFor,
} from './harness.ts';

// Bearer tokens in JWKS mode (the AWS configuration: an OIDC provider's keys served over HTTP, here by a local
// server) and in the local HS256 mode, on every route: each bad token is a 401 in the area's format (402 on
// view/docs for an unusable sub, DESIGN.md section 2).

const ISSUER = 'https://issuer.memgate.test/';
const AUDIENCE = 'memgate-api';
let jwks: Server;
let jwksHits = 0;
let h: SecurityHarness;
let hs: SecurityHarness;
let stub: UpstreamStub;
let sign: (claims: JWTPayload, options?: { kid?: string; key?: CryptoKey; alg?: string }) => Promise<string>;
let publicJwk: Record<string, unknown>;
/** A key of the same type that the key set does not hold. */
let otherKey: CryptoKey;
let tried = 0;

beforeAll(async () => {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const other = await generateKeyPair('RS256');
  publicJwk = { ...(await exportJWK(publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
  jwks = createServer((_req, res) => {
    jwksHits += 1;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [publicJwk] }));
  });
  jwks.listen(0, '127.0.0.1');
  await once(jwks, 'listening');
  const jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/.well-known/jwks.json`;
  sign = (claims, { kid = 'k1', key = privateKey as CryptoKey, alg = 'RS256' } = {}) =>
    new SignJWT(claims).setProtectedHeader({ alg, kid }).sign(key);
  otherKey = other.privateKey as CryptoKey;
  stub = await startUpstreamStub();
  h = await startSecurityHarness({
    verifier: createTokenVerifier({ kind: 'jwks', jwksUrl, issuer: ISSUER, audience: AUDIENCE }),
  });
  hs = await startSecurityHarness({ table: h.table });
});
afterAll(async () => {
  await stub.close();
  jwks.close();
  console.info(`tokens: ${tried} bad-token requests`);
});

const now = () => Math.floor(Date.now() / 1000);
const good = (extra: JWTPayload = {}): JWTPayload => ({
  sub: 'alice',
  orgs: ['acme'],
  scope: ALL_SCOPES,
  iss: ISSUER,
  aud: AUDIENCE,
  iat: now(),
  exp: now() + 600,
  ...extra,
});
const without = (key: keyof JWTPayload): JWTPayload => {
  const claims = good();
  delete claims[key];
  return claims;
};

/** Every route once with `token`; returns the statuses in route order. */
async function acrossRoutes(harness: SecurityHarness, token: string | undefined, header?: string) {
  const routes = [
    ...endpointsOf(stub.url),
    {
      name: 'chat replay',
      method: 'GET' as const,
      path: '/api/v1/chat/replay/r1',
      area: 'chat' as const,
      body: undefined,
    },
  ];
  const out: { name: string; status: number; ok: boolean }[] = [];
  for (const route of routes) {
    tried += 1;
    const res = await harness.request(route.method, route.path, {
      token,
      body: route.body,
      ...(header ? { headers: { authorization: header } } : {}),
    });
    out.push({ name: route.name, status: res.status, ok: isAreaError(route.area, res.status, res.text) });
    if (token) expect(res.text).not.toContain(token);
  }
  return out;
}

function expectAll(results: { name: string; status: number; ok: boolean }[], status: number, label: string) {
  for (const result of results) {
    expect(result.status, `${label}: ${result.name}`).toBe(status);
    expect(result.ok, `${label}: ${result.name} error format`).toBe(true);
  }
}

describe('JWKS mode (issuer, audience and keys of an OIDC provider)', () => {
  it('a good token passes on every route, verified against the served key set', async () => {
    const results = await acrossRoutes(h, await sign(good()));
    // The replay id is unknown (404); every other route succeeds.
    for (const result of results) {
      if (result.name === 'chat replay') expect(result.status).toBe(404);
      else expect([200, 201, 202, 204], result.name).toContain(result.status);
    }
    expect(jwksHits).toBeGreaterThan(0);
  });

  it.each([
    ['expired', () => sign(good({ exp: now() - 120 }))],
    ['not yet valid (nbf in the future)', () => sign(good({ nbf: now() + 3600 }))],
    ['signed by another key under the same kid', () => sign(good(), { key: otherKey })],
    ['with an unknown kid', () => sign(good(), { kid: 'k2' })],
    ['alg none', async () => new UnsecuredJWT(good()).encode()],
    [
      'HS256 with the public key as the secret (algorithm confusion)',
      () =>
        new SignJWT(good())
          .setProtectedHeader({ alg: 'HS256', kid: 'k1' })
          .sign(new TextEncoder().encode(JSON.stringify(publicJwk))),
    ],
    [
      'a tampered payload',
      async () => {
        const [head, , sig] = (await sign(good())).split('.');
        const forged = Buffer.from(JSON.stringify(good({ sub: 'admin', scope: `${ALL_SCOPES} context:admin` })));
        return `${head}.${forged.toString('base64url')}.${sig}`;
      },
    ],
    ['a wrong issuer', () => sign(good({ iss: 'https://evil.example/' }))],
    ['no issuer', () => sign(without('iss'))],
    ['a wrong audience', () => sign(good({ aud: 'another-api' }))],
    ['no audience', () => sign(without('aud'))],
    ['no sub', () => sign(without('sub'))],
    ['no exp (it would never expire)', () => sign(without('exp'))],
    ['a local HS256 token', () => tokenFor('alice', { orgs: ['acme'], scope: ALL_SCOPES })],
  ])('401 on every route for a token %s', async (label, make) => {
    expectAll(await acrossRoutes(h, await make()), 401, label);
  });

  it('an unusable sub: 402 on view/docs, 401 everywhere else', async () => {
    for (const sub of ['', 'bad user!', 'a'.repeat(129), 'alice/../bob', 'ålice']) {
      for (const result of await acrossRoutes(h, await sign(good({ sub })))) {
        expect(result.status, `${sub} ${result.name}`).toBe(result.name === 'context view/docs' ? 402 : 401);
        expect(result.ok).toBe(true);
      }
    }
  });
});

describe('HS256 mode (the local server) and the Authorization header', () => {
  it.each([
    ['expired', () => tokenFor('alice', { expiresIn: now() - 60 })],
    ['signed with another secret', () => tokenFor('alice', { secret: 'another-secret-another-secret-0000' })],
    ['alg none', async () => new UnsecuredJWT(good()).setSubject('alice').encode()],
    ['an RS256 token', () => sign(good())],
    [
      'not yet valid',
      () =>
        new SignJWT(good({ nbf: now() + 3600 }))
          .setProtectedHeader({ alg: 'HS256' })
          .sign(new TextEncoder().encode(TEST_SECRET)),
    ],
    [
      'without exp',
      () =>
        new SignJWT(good({ exp: undefined }))
          .setProtectedHeader({ alg: 'HS256' })
          .sign(new TextEncoder().encode(TEST_SECRET)),
    ],
    ['garbage', async () => 'not.a.jwt'],
  ])('401 on every route for a token %s', async (label, make) => {
    expectAll(await acrossRoutes(hs, await make()), 401, label);
  });

  it.each(['', 'Bearer', 'Bearer ', 'Basic YWxpY2U6cGFzcw==', 'Token abc', 'Bearer a b'])(
    '401 on every route for the header %j',
    async (header) => {
      expectAll(await acrossRoutes(hs, undefined, header || ' '), 401, `header ${header}`);
    },
  );
});
