import { SignJWT } from 'jose';

export const TEST_SECRET = 'test-secret-for-memgate-tests-0123456789';

/** A signed HS256 token for tests; every claim can be overridden to build bad tokens. */
export async function tokenFor(
  user: string,
  {
    orgs = [],
    scope = 'context:read context:write context:delete chat proxy',
    expiresIn = '1h',
    secret = TEST_SECRET,
  }: {
    orgs?: string[];
    scope?: string;
    expiresIn?: string | number;
    secret?: string;
  } = {},
): Promise<string> {
  return new SignJWT({ orgs, scope })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(user)
    .setIssuedAt()
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(secret));
}
