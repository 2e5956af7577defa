import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The local HS256 secret: AUTH_JWT_SECRET when set, else a random one created once in DATA_DIR and reused,
 * so tokens from `npm run token` stay valid across restarts.
 */
export function localJwtSecret(dataDir: string, configured?: string): string {
  if (configured) return configured;
  const file = join(dataDir, 'jwt-secret');
  try {
    const existing = readFileSync(file, 'utf8').trim();
    if (existing.length >= 32) return existing;
  } catch {
    // not created yet
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(48).toString('base64url');
  try {
    writeFileSync(file, `${secret}\n`, { mode: 0o600, flag: 'wx' });
    return secret;
  } catch {
    // Another process created it first: use theirs.
    return readFileSync(file, 'utf8').trim();
  }
}
