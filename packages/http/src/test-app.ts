import type { AppDeps } from './app.ts';
import { createApp } from './app.ts';
import { createTokenVerifier } from './auth/index.ts';
import { silentLogger } from './observability/index.ts';

/**
 * The whole app with no services behind it, for tests of what it serves without reaching one: /health, the OpenAPI
 * document, routing. Any request that gets as far as a service fails.
 */
export const bareApp = () =>
  createApp({
    verifier: createTokenVerifier({ kind: 'hs256', secret: 'x'.repeat(40) }),
    logger: silentLogger,
    context: {},
    proxy: {},
    chat: {},
  } as unknown as AppDeps);
