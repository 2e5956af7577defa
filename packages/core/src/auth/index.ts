import { forbidden } from '../errors/index.ts';

export const SCOPES = ['context:read', 'context:write', 'context:delete', 'chat', 'proxy', 'context:admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** The authenticated caller, derived from a verified token. Nothing in a request body can widen it. */
export interface Principal {
  readonly userId: string;
  readonly orgs: readonly string[];
  readonly scopes: ReadonlySet<string>;
}

/** Throws 403 unless the principal holds `scope`. */
export function requireScope(principal: Principal, scope: Scope): void {
  if (!principal.scopes.has(scope)) throw forbidden(`this token lacks the '${scope}' scope`);
}

/**
 * The vector/record partition a record lives in: its organization when it has one, else its owner.
 * Derived by the server only; no request names one.
 */
export type TenantKey = `user:${string}` | `org:${string}`;

export function tenantOf(ownerId: string, organizationId: string | null): TenantKey {
  return organizationId === null ? `user:${ownerId}` : `org:${organizationId}`;
}

/** Every partition the principal can read: its own and each of its organizations'. */
export function visibleTenants(principal: Principal): TenantKey[] {
  return [tenantOf(principal.userId, null), ...principal.orgs.map((org) => tenantOf(principal.userId, org))];
}
