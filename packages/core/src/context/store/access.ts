import { canActFor, type Principal, type TenantKey, tenantOf, visibleTenants } from '../../auth/index.ts';
import { forbidden } from '../../errors/index.ts';

/** Throws 403 unless the principal belongs to `organizationId` (when one is named). */
export function requireMembership(principal: Principal, organizationId: string | null | undefined): void {
  if (organizationId != null && !principal.orgs.includes(organizationId)) {
    throw forbidden(`organization_id '${organizationId}' is not one of this token's organizations`, 'not_a_member');
  }
}

/**
 * Whose records a write (add, delete) acts on. Another user's records need `context:admin` and a shared
 * organization (DESIGN.md section 2); a named organization must be one of the caller's.
 */
export function resolveOwner(
  principal: Principal,
  userId: string | null | undefined,
  organizationId: string | null | undefined,
): { ownerId: string; organizationId: string | null } {
  const ownerId = userId ?? principal.userId;
  const organization = organizationId ?? null;
  requireMembership(principal, organization);
  if (ownerId !== principal.userId && !canActFor(principal, ownerId, organization)) {
    throw forbidden(
      principal.scopes.has('context:admin')
        ? `acting for user_id '${ownerId}' needs an organization_id you share`
        : `acting for another user_id needs the 'context:admin' scope`,
      'not_owner',
    );
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
  if (!principal.scopes.has('context:admin')) {
    throw forbidden(`reading another user_id's records needs the 'context:admin' scope`, 'not_owner');
  }
  return { tenants: tenants.filter((tenant) => tenant.startsWith('org:')), ownerId: userId };
}
