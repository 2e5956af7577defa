import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { type Config, createDocumentClient, createServices, ensureTable } from '@memgate/adapters';
import { systemClock } from '@memgate/core';
import { loadTokenizer } from '@memgate/core/history/tokenizer';
import {
  type AppDeps,
  createApp,
  createBackgroundWork,
  createJsonLogger,
  createTokenVerifier,
  type Logger,
} from '@memgate/http';
import { createMcpApp } from '@memgate/http/mcp/index';
import { withCors } from './cors.ts';
import { startUnderLock } from './data-dir-lock.ts';
import { createLocalDocs } from './docs.ts';
import { type DynamoLocal, startDynamoLocal } from './dynamo-local.ts';
import { createMemoryLimit } from './memory-limit.ts';
import { localJwtSecret } from './secret.ts';
import { createLocalVectorIndex, denseGraphFor } from './vector-index/index.ts';
import { collectYoungIfFull, collectYoungWhenIdle } from './young-when-idle.ts';

export interface RunningServer {
  url: string;
  dynamoEndpoint: string;
  /** Resolves once the work requests left behind is done: captured exchanges stored, vectors in their graphs. */
  settled(): Promise<void>;
  stop(): Promise<void>;
}

/** The verifier for this runtime: JWKS when configured (OIDC provider), else the local HS256 secret. */
function verifierFor(config: Config) {
  if (config.AUTH_JWKS_URL) {
    return createTokenVerifier({
      kind: 'jwks',
      jwksUrl: config.AUTH_JWKS_URL,
      ...(config.AUTH_ISSUER ? { issuer: config.AUTH_ISSUER } : {}),
      ...(config.AUTH_AUDIENCE ? { audience: config.AUTH_AUDIENCE } : {}),
    });
  }
  return createTokenVerifier({ kind: 'hs256', secret: localJwtSecret(config.DATA_DIR, config.AUTH_JWT_SECRET) });
}

/**
 * Serves `fetch` on 127.0.0.1:port. A port already taken fails the start with a sentence that says so (it was an
 * unhandled 'error' event: an "uncaught exception" log line with a stack, and DynamoDB Local left to the guardian).
 */
function listen(fetch: Parameters<typeof serve>[0]['fetch'], port: number): Promise<Server> {
  return new Promise<Server>((ready, refuse) => {
    const server = serve({ fetch, port, hostname: '127.0.0.1' }, () => {
      server.off('error', failed);
      ready(server as Server);
    });
    function failed(error: NodeJS.ErrnoException) {
      refuse(
        error.code === 'EADDRINUSE'
          ? new Error(
              `port ${port} on 127.0.0.1 is already in use (another memgate or another program): stop it, or set PORT`,
            )
          : error,
      );
    }
    server.once('error', failed);
  });
}

/**
 * Starts the whole service in this process on embedded parts: DynamoDB Local (unless DYNAMODB_ENDPOINT is set),
 * the embedded vector index under DATA_DIR, and every endpoint on 127.0.0.1:PORT.
 */
export async function startLocalServer(
  config: Config,
  logger: Logger = createJsonLogger({ level: config.LOG_LEVEL }),
): Promise<RunningServer> {
  const { lock, started: dynamo } = await startUnderLock(config.DATA_DIR, async () =>
    config.DYNAMODB_ENDPOINT ? undefined : startDynamoLocal({ dataDir: config.DATA_DIR }),
  );
  const endpoint = config.DYNAMODB_ENDPOINT ?? (dynamo as DynamoLocal).endpoint;
  const documentClient = createDocumentClient({ endpoint });
  // Closed again when the start fails after opening it (a port in use, say).
  let opened: { close(): Promise<void> } | undefined;
  try {
    await ensureTable(documentClient, config.TABLE_NAME, (message, fields) => logger.info(message, fields));
    const vectorIndex = await createLocalVectorIndex({
      dir: `${config.DATA_DIR}/vectors`,
      unloadIdleAfterMs: config.LOCAL_INDEX_UNLOAD_AFTER_MS,
      denseGraph: denseGraphFor(config.EMBEDDINGS),
    });
    opened = vectorIndex;
    const services = createServices({
      config,
      documentClient,
      tableName: config.TABLE_NAME,
      vectorIndex,
      clock: systemClock,
      log: (level, message, fields) => logger[level](message, fields),
    });
    const verifier = verifierFor(config);
    // Work after a response (the proxy's captured exchanges, stored in batches): drained by stop() before the
    // index and DynamoDB Local close, so an exchange the proxy accepted is not lost on shutdown.
    const background = createBackgroundWork((error) =>
      logger.error('work after the response failed', { error: error instanceof Error ? error.message : String(error) }),
    );
    // A request that filters or searches takes the young collection at its start when it is filling (young-when-idle.ts).
    const proxy = { ...services.proxy, background, beforeMemoryWork: () => collectYoungIfFull() };
    const app = createApp({ verifier, logger, ...services, proxy, docs: createLocalDocs() } as AppDeps);
    // MCP (DESIGN.md section 5a) over the same context store. Mounted here, not in createApp: the `@memgate/http`
    // barrel that every Lambda imports must not reach the MCP SDK (it would add ~200 KB to each bundle).
    app.route('/', createMcpApp({ verifier, logger, store: services.context.store }));
    // Before the first request, not inside it: the proxy's and the chat's token counts need the encoder.
    loadTokenizer();
    const server = await listen(withCors(app.fetch), config.PORT);
    // Idle keep-alive connections are closed after 65 s rather than Node's 5 s: a client that reuses a connection at
    // the moment the server drops it sees "other side closed", and clients (undici, the OpenAI SDK) keep theirs a
    // few seconds, so a short server timeout makes that race likely on a busy machine.
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    const unwatchIdle = collectYoungWhenIdle(server);
    const unwatch =
      config.LOCAL_MEMORY_SOFT_LIMIT_MB > 0
        ? createMemoryLimit({ limitBytes: config.LOCAL_MEMORY_SOFT_LIMIT_MB * 1024 * 1024 }).watch()
        : () => {};
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.PORT;
    return {
      url: `http://127.0.0.1:${port}`,
      dynamoEndpoint: endpoint,
      async settled() {
        await background.idle();
        await vectorIndex.idle();
      },
      async stop() {
        unwatch();
        unwatchIdle();
        try {
          await new Promise<void>((done) => server.close(() => done()));
          server.closeAllConnections?.();
          await background.idle();
          await vectorIndex.close();
          documentClient.destroy();
          await dynamo?.stop();
        } finally {
          lock.release();
        }
      },
    };
  } catch (error) {
    await opened?.close();
    documentClient.destroy();
    await dynamo?.stop();
    lock.release();
    throw error;
  }
}
