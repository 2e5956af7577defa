import { SCOPES } from '@memgate/core';
import { SignJWT } from 'jose';

export interface TokenClaims {
  user: string;
  orgs?: string[];
  scope?: string;
  expiresIn?: string;
}

/** All scopes but context:admin: what `npm run token` grants when --scope is left out. */
export const DEFAULT_TOKEN_SCOPE = SCOPES.filter((scope) => scope !== 'context:admin').join(' ');

/** Signs a local HS256 token the local server accepts. */
export async function signLocalToken(secret: string, claims: TokenClaims): Promise<string> {
  return new SignJWT({ orgs: claims.orgs ?? [], scope: claims.scope ?? DEFAULT_TOKEN_SCOPE })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setSubject(claims.user)
    .setIssuedAt()
    .setExpirationTime(claims.expiresIn ?? '30d')
    .sign(new TextEncoder().encode(secret));
}
