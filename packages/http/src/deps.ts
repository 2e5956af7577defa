import type { TokenVerifier } from './auth/verifier.ts';
import type { Logger } from './observability/logger.ts';

/** What every area's app needs regardless of its own services. */
export interface BaseDeps {
  verifier: TokenVerifier;
  logger: Logger;
}
