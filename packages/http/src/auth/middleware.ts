import { MemgateError, type Principal, requireScope, type Scope } from '@memgate/core';
import type { Context, MiddlewareHandler } from 'hono';
import { requestHeader } from '../request/node.ts';
import { isUsableUserId, type TokenVerifier } from './verifier.ts';

export type AuthEnv = { Variables: { principal: Principal } };

export interface AuthOptions {
  verifier: TokenVerifier;
  /** Scope every request through this middleware must hold; none for an area that checks scopes per call (MCP). */
  scope?: Scope;
  /** view/docs answers 402 for a token whose `sub` is not a usable user id; every other route answers 401. */
  unusableUserStatus?: 401 | 402;
}

/**
 * Reads `Authorization: Bearer`, verifies it and checks `scope`: the caller's principal, or an `authentication` (or
 * `invalid_user`, `insufficient_scope`) MemgateError. For a route that does its checks in one step (the proxy's).
 */
export async function principalOf(
  c: Context,
  { verifier, scope, unusableUserStatus = 401 }: AuthOptions,
): Promise<Principal> {
  const header = requestHeader(c, 'authorization') ?? '';
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (!match?.[1]) {
    throw new MemgateError('authentication', 'invalid_token', 'missing Authorization: Bearer <token> header');
  }
  const principal = await verifier(match[1]);
  if (!isUsableUserId(principal.userId)) {
    throw unusableUserStatus === 402
      ? new MemgateError('invalid_user', 'invalid_user', "token 'sub' is not a usable user id")
      : new MemgateError('authentication', 'invalid_token', "token 'sub' is not a usable user id");
  }
  if (scope !== undefined) requireScope(principal, scope);
  return principal;
}

/** Middleware form of `principalOf`: sets `c.var.principal`. */
export function authenticate(options: AuthOptions): MiddlewareHandler<AuthEnv> {
  return async function authenticateRequest(c, next) {
    c.set('principal', await principalOf(c, options));
    await next();
  };
}
