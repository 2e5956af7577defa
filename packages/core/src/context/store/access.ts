import { type Principal, type TenantKey, tenantOf, visibleTenants } from '../../auth/index.ts';
import { forbidden } from '../../errors/index.ts';

/** Throws 403 unless the principal belongs to `organizationId` (when one is named). */
export function requireMembership(principal: Principal, organizationId: string | null | undefined): void {
  if (organizationId != null && !principal.orgs.includes(organizationId)) {
    throw forbidden(`organization_id '${organizationId}' is not one of this token's organizations`, 'not_a_member');
  }
}

/**
 * The one rule for another user's records (DESIGN.md section 2), whatever the route (add, search, delete, view):
 * acting on records owned by someone else needs `context:admin`. Where it applies, the admin's reach is then
 * narrowed to the organizations both share (readScope, the delete's narrowing, resolveOwner).
 */
export function requireActingFor(principal: Principal, ownerId: string): void {
  if (ownerId !== principal.userId && !principal.scopes.has('context:admin')) {
    throw forbidden(`another user's records (user_id '${ownerId}') need the 'context:admin' scope`, 'not_owner');
  }
}

/**
 * Whose records an add writes: another user's needs `context:admin` and an organization both share (an admin
 * never writes into another user's personal partition); a named organization must be one of the caller's.
 */
export function resolveOwner(
  principal: Principal,
  userId: string | null | undefined,
  organizationId: string | null | undefined,
): { ownerId: string; organizationId: string | null } {
  const ownerId = userId ?? principal.userId;
  const organization = organizationId ?? null;
  requireMembership(principal, organization);
  requireActingFor(principal, ownerId);
  if (ownerId !== principal.userId && organization === null) {
    throw forbidden(`writing for user_id '${ownerId}' needs an organization_id you share`, 'not_owner');
  }
  return { ownerId, organizationId: organization };
}

/** What a read (search, view) may cover: namespaces, and an owner to narrow to when acting for another user. */
export interface ReadScope {
  tenants: TenantKey[];
  ownerId?: string;
}

/**
 * The partitions a read covers: all the caller can see, or the one organization named. A `user_id` other than the
 * caller's needs `context:admin` and narrows to that user's records in the caller's organizations.
 */
export function readScope(
  principal: Principal,
  { userId, organizationId }: { userId?: string | null | undefined; organizationId?: string | null | undefined },
): ReadScope {
  requireMembership(principal, organizationId);
  const tenants = organizationId != null ? [tenantOf(principal.userId, organizationId)] : visibleTenants(principal);
  if (userId == null || userId === principal.userId) return { tenants };
  requireActingFor(principal, userId);
  return { tenants: tenants.filter((tenant) => tenant.startsWith('org:')), ownerId: userId };
}
