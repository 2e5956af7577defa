// Deep imports, not the package barrels: a barrel would pull every adapter (and its side effects) into each bundle.
import { type Config, loadConfig } from '@memgate/adapters/config/index';
import { createDocumentClient } from '@memgate/adapters/dynamodb/client';
import { createPineconeVectorIndex } from '@memgate/adapters/pinecone/index';
import type { ServiceInputs } from '@memgate/adapters/services/index';
import { systemClock } from '@memgate/core/clock';
import {
  type BackgroundWork,
  type BaseDeps,
  createBackgroundWork,
  createTokenVerifier,
  type Logger,
  notFoundHandler,
  pathErrorHandler,
  requestLog,
  type VerifierOptions,
} from '@memgate/http';
import { Hono } from 'hono';
import { nodeFetch } from './node-fetch.ts';
import { awsRequestIdOf, createLambdaObservability, type LambdaObservability } from './observability.ts';
import { withoutSharedConfigFiles } from './sdk-config.ts';

/**
 * The AWS composition root, run once per cold start. Linked resources and secrets arrive as plain environment
 * variables set by infra/ (TABLE_NAME, PINECONE_*, AUTH_*, DEFAULT_MODEL_*): the `sst` SDK's `Resource` would read
 * the same values but pulls the SST runtime into every bundle, so the handlers read `process.env` through
 * `loadConfig` like the local server does. Only cloud adapters are imported here: DynamoDB, Pinecone, embedders.
 */
export interface AwsRuntime {
  config: Config;
  logger: Logger;
  /** Powertools: the logger above, the invocation's context in it, and EMF metrics. */
  observability: LambdaObservability;
  /** Work started after a response (the proxy's exchange capture); a streaming handler waits for it to finish. */
  background: BackgroundWork;
  inputs: ServiceInputs;
}

/** JWKS (any OIDC provider) when AUTH_JWKS_URL is set, else an HS256 shared secret (AUTH_JWT_SECRET). */
export function verifierOptionsFor(config: Config): VerifierOptions {
  const claims = {
    ...(config.AUTH_ISSUER ? { issuer: config.AUTH_ISSUER } : {}),
    ...(config.AUTH_AUDIENCE ? { audience: config.AUTH_AUDIENCE } : {}),
  };
  if (config.AUTH_JWKS_URL) return { kind: 'jwks', jwksUrl: config.AUTH_JWKS_URL, ...claims };
  if (config.AUTH_JWT_SECRET) return { kind: 'hs256', secret: config.AUTH_JWT_SECRET, ...claims };
  // Unlike local mode there is no data directory to keep a generated secret in: refuse to start instead.
  throw new Error('invalid configuration: set AUTH_JWKS_URL (OIDC) or AUTH_JWT_SECRET');
}

/** Reads configuration and builds the cloud adapters; throws with the variable's name when something is missing. */
export function createAwsRuntime(env: Record<string, string | undefined> = process.env): AwsRuntime {
  const config = loadConfig(env);
  if (config.VECTOR_STORE !== 'pinecone') {
    throw new Error('invalid configuration: the AWS runtime needs VECTOR_STORE=pinecone');
  }
  // Without a host the Pinecone client asks the control plane for it on a cold start's first vector call (a round
  // trip to api.pinecone.io); Lambda bundles leave that client out (scripts/build.ts), so the host is required.
  if (!config.PINECONE_HOST) {
    throw new Error("invalid configuration: set PINECONE_HOST, the index's data-plane host (Pinecone console)");
  }
  const observability = createLambdaObservability({
    level: config.LOG_LEVEL,
    serviceName: env.AWS_LAMBDA_FUNCTION_NAME ?? 'memgate',
  });
  const { logger } = observability;
  const documentClient = createDocumentClient({
    ...(config.DYNAMODB_ENDPOINT ? { endpoint: config.DYNAMODB_ENDPOINT } : {}),
    sdkConfig: withoutSharedConfigFiles(env),
  });
  const apiKey = config.PINECONE_API_KEY as string;
  const vectorIndex = createPineconeVectorIndex({
    apiKey,
    indexName: config.PINECONE_INDEX as string,
    host: config.PINECONE_HOST,
    // The adapter's retry policy over node:http instead of the global fetch (see node-fetch.ts).
    retry: { fetch: nodeFetch },
  });
  return {
    config,
    logger,
    observability,
    background: createBackgroundWork((error) =>
      logger.error('work after the response failed', { error: error instanceof Error ? error.message : String(error) }),
    ),
    inputs: {
      config,
      documentClient,
      tableName: config.TABLE_NAME,
      vectorIndex,
      clock: systemClock,
      log: (level, message, fields) => logger[level](message, fields),
    },
  };
}

/** What `createContextApp`, `createProxyApp` and `createChatApp` return (each with its own context Env). */
// biome-ignore lint/suspicious/noExplicitAny: the areas' Env types differ and do not matter to the wrapper
type AreaApp = Hono<any, any, any>;

let current: AwsRuntime | undefined;

/** The runtime of this Lambda instance, built on first use and reused by every invocation. */
export function awsRuntime(): AwsRuntime {
  current ??= createAwsRuntime();
  return current;
}

/**
 * Wraps one area's app the way `createApp` wraps all of them: request log, 404 and last-resort error envelopes.
 * The verifier is built here, not in the runtime: the cleanup serves no requests and needs no auth settings.
 */
export function lambdaApp(area: (runtime: AwsRuntime & { base: BaseDeps }) => AreaApp): Hono {
  const runtime = awsRuntime();
  const base: BaseDeps = { verifier: createTokenVerifier(verifierOptionsFor(runtime.config)), logger: runtime.logger };
  const app = new Hono();
  app.use(runtime.observability.middleware);
  app.use(requestLog(runtime.logger, { requestIdOf: awsRequestIdOf }));
  app.route('/', area({ ...runtime, base }));
  app.notFound(notFoundHandler());
  app.onError(pathErrorHandler(runtime.logger));
  return app;
}
