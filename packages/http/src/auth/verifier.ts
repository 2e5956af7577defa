import { createLru, MemgateError, type Principal } from '@memgate/core';
import { createRemoteJWKSet, type JWTPayload, type JWTVerifyGetKey, errors as joseErrors, jwtVerify } from 'jose';

/** Turns a bearer token into a principal, or throws an `authentication` MemgateError. */
export type TokenVerifier = (token: string) => Promise<Principal>;

export type VerifierOptions = (
  | { kind: 'hs256'; secret: string | Uint8Array; issuer?: string; audience?: string }
  | { kind: 'jwks'; jwksUrl: string; issuer?: string; audience?: string; getKey?: JWTVerifyGetKey }
) & {
  /** Milliseconds since the epoch (tests move it); the token's `exp` and `nbf` are judged against it. */
  now?: () => number;
};

/** Verified tokens remembered, so a client's repeated token is not verified again on every request. */
const VERIFIED_CACHE_SIZE = 1_000;

const USER_ID = /^[A-Za-z0-9._@:-]{1,128}$/;

/** DESIGN.md section 2: a `sub` is usable when it is 1–128 characters of `[A-Za-z0-9._@:-]`. */
export function isUsableUserId(sub: unknown): sub is string {
  return typeof sub === 'string' && USER_ID.test(sub);
}

const isOrganizationId = (value: unknown): value is string => typeof value === 'string' && value.length > 0;

const malformedClaim = (claim: string, shape: string) =>
  new MemgateError('authentication', 'invalid_token', `token claim '${claim}' must be ${shape}`);

/**
 * DESIGN.md section 2: `orgs` is an array of organization ids, and a single `org_id` string is also accepted (both
 * given: both count). Anything else in them (`orgs` as a string, an entry that is not a non-empty string) refuses
 * the token: dropping what cannot be read would serve the caller without organizations it belongs to.
 */
function organizationsOf(payload: JWTPayload): string[] {
  const { orgs, org_id } = payload;
  const found: string[] = [];
  if (orgs !== undefined && orgs !== null) {
    if (!Array.isArray(orgs) || !orgs.every(isOrganizationId)) {
      throw malformedClaim('orgs', 'an array of organization ids (non-empty strings)');
    }
    found.push(...orgs);
  }
  if (org_id !== undefined && org_id !== null) {
    if (!isOrganizationId(org_id)) throw malformedClaim('org_id', 'one organization id (a non-empty string)');
    found.push(org_id);
  }
  return [...new Set(found)];
}

function scopesOf(payload: JWTPayload): Set<string> {
  const scope = payload.scope ?? payload.scp;
  if (typeof scope === 'string') return new Set(scope.split(/\s+/).filter(Boolean));
  if (Array.isArray(scope)) return new Set(scope.filter((s): s is string => typeof s === 'string'));
  return new Set();
}

function describe(error: unknown): string {
  if (error instanceof joseErrors.JWTExpired) return 'token has expired';
  if (error instanceof joseErrors.JWTClaimValidationFailed) {
    return error.reason === 'missing'
      ? `token has no '${error.claim}' claim`
      : `token claim '${error.claim}' is not valid`;
  }
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return 'token signature is not valid';
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return 'token algorithm is not allowed';
  return 'token is not a valid JWT';
}

/** Builds the verifier for the configured mode (local HS256 secret or an OIDC provider's JWKS). */
export function createTokenVerifier(options: VerifierOptions): TokenVerifier {
  // The HS256 secret becomes a CryptoKey once: given raw bytes, jose imports them again for every token it verifies.
  const key =
    options.kind === 'hs256'
      ? crypto.subtle.importKey(
          'raw',
          typeof options.secret === 'string'
            ? new TextEncoder().encode(options.secret)
            : new Uint8Array(options.secret),
          { name: 'HMAC', hash: 'SHA-256' },
          false,
          ['verify'],
        )
      : (options.getKey ?? createRemoteJWKSet(new URL(options.jwksUrl)));
  const algorithms = options.kind === 'hs256' ? ['HS256'] : ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'PS256'];
  const claims = {
    algorithms,
    // A token without `exp` would be valid forever, and a leaked one could never be retired (DESIGN.md section 2).
    requiredClaims: ['exp'],
    ...(options.issuer ? { issuer: options.issuer } : {}),
    ...(options.audience ? { audience: options.audience } : {}),
  };
  const now = options.now ?? Date.now;
  /**
   * Token (signature included, so a forged variant never matches) → its principal and until when it holds. Only
   * successful verifications are kept, at most until the token's `exp`; the least recently used goes when it is full.
   */
  const verified = createLru<string, { principal: Principal; until: number }>({ maxWeight: VERIFIED_CACHE_SIZE });

  async function verify(token: string, at: number): Promise<{ principal: Principal; until: number }> {
    let payload: JWTPayload;
    const checks = { ...claims, currentDate: new Date(at) };
    try {
      // jose's overloads differ only in the key's type; both branches verify the same claims.
      payload =
        key instanceof Promise
          ? (await jwtVerify(token, await key, checks)).payload
          : (await jwtVerify(token, key, checks)).payload;
    } catch (error) {
      throw new MemgateError('authentication', 'invalid_token', describe(error));
    }
    // An empty `sub` is a token for no usable user: the middleware answers it (402 on view/docs, DESIGN.md 2).
    if (typeof payload.sub !== 'string') {
      throw new MemgateError('authentication', 'invalid_token', "token has no 'sub' claim");
    }
    return {
      principal: { userId: payload.sub, orgs: organizationsOf(payload), scopes: scopesOf(payload) },
      // jose has checked that `exp` is there, a number, and ahead of `at`.
      until: (payload.exp as number) * 1000,
    };
  }

  return async function verifyToken(token: string): Promise<Principal> {
    const at = now();
    let entry = verified.get(token);
    if (entry === undefined || at >= entry.until) {
      verified.delete(token);
      entry = await verify(token, at);
      verified.set(token, entry);
    }
    // A copy: the caller may not change what the next request with this token gets.
    const { principal } = entry;
    return { userId: principal.userId, orgs: [...principal.orgs], scopes: new Set(principal.scopes) };
  };
}
