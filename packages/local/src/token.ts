import { SCOPES } from '@memgate/core';
import { isUsableUserId } from '@memgate/http/auth/verifier';
import { SignJWT } from 'jose';

export interface TokenClaims {
  user: string;
  orgs?: string[];
  scope?: string;
  expiresIn?: string;
}

/** All scopes but context:admin: what `npm run token` grants when --scope is left out. */
export const DEFAULT_TOKEN_SCOPE = SCOPES.filter((scope) => scope !== 'context:admin').join(' ');

/**
 * Why no route would accept a token with these claims (a user id the server refuses, a scope no route checks, such as
 * a typo or a comma-separated list), or undefined: said when the token is asked for, not on every request after.
 */
export function tokenClaimsProblem(claims: TokenClaims): string | undefined {
  if (!isUsableUserId(claims.user)) {
    return `user '${claims.user}' is not a usable user id: 1 to 128 characters of A-Z a-z 0-9 . _ @ : -`;
  }
  const known = new Set<string>(SCOPES);
  const unknown = (claims.scope ?? '').split(/\s+/).filter((scope) => scope !== '' && !known.has(scope));
  if (unknown.length > 0) {
    return `unknown scope ${unknown.map((scope) => `'${scope}'`).join(', ')}; scopes (space-separated): ${SCOPES.join(' ')}`;
  }
  return undefined;
}

/** Signs a local HS256 token the local server accepts. */
export async function signLocalToken(secret: string, claims: TokenClaims): Promise<string> {
  return new SignJWT({ orgs: claims.orgs ?? [], scope: claims.scope ?? DEFAULT_TOKEN_SCOPE })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.user)
    .setIssuedAt()
    .setExpirationTime(claims.expiresIn ?? '30d')
    .sign(new TextEncoder().encode(secret));
}
