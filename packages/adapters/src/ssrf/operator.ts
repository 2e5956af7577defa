import { Agent } from 'undici';
import type { TargetGuard } from './index.ts';

/** Why `raw` cannot be an operator upstream's base URL, or undefined when it can (any http(s) host, private too). */
export function operatorUrlProblem(raw: string): string | undefined {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'must be an http(s) URL';
  // fetch refuses such URLs; the key has its own variable.
  if (url.username || url.password) return 'must not hold credentials (the key has its own variable)';
  return undefined;
}

/**
 * DESIGN.md section 4: an operator upstream (DEFAULT_MODEL_BASE_URL) is configuration, not caller input, so it may be
 * http and on a private address whatever PROXY_ALLOW_PRIVATE_TARGETS says; that flag and the SSRF checks belong to
 * route A's targets alone. Its own dispatcher: nothing (pool, policy) is shared with route A's guard.
 */
export function createOperatorGuard({
  variable,
  connectTimeoutMs = 10_000,
}: {
  /** The variable the URL came from, named in the start-up error. */
  variable: string;
  connectTimeoutMs?: number;
}): TargetGuard {
  return {
    checkUrl(raw) {
      const problem = operatorUrlProblem(raw);
      if (problem) throw new Error(`invalid configuration: ${variable} ${problem}`);
      return new URL(raw);
    },
    dispatcher: new Agent({ connect: { timeout: connectTimeoutMs } }),
  };
}
