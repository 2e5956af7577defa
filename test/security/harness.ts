import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import {
  createServices,
  createTargetGuard,
  createUpstreamModel,
  loadConfig,
  type ServiceInputs,
} from '@memgate/adapters';
import type { LookupAll } from '@memgate/adapters/ssrf/index';
import { runCleanup, systemClock, type VectorIndex } from '@memgate/core';
import {
  type AppDeps,
  createApp,
  createBackgroundWork,
  createJsonLogger,
  createTokenVerifier,
  type TokenVerifier,
} from '@memgate/http';
import { createFailingIndex } from '../support/context-fakes.ts';
import { createTestTable, type TestTable } from '../support/dynamo.ts';
import { createMemoryIndex } from '../support/memory-ports.ts';
import { TEST_SECRET, tokenFor } from '../support/tokens.ts';

// The whole service (every area, as the local server composes it) over DynamoDB Local and an exact in-memory
// vector index, with every log line captured: what the security suite attacks and inspects.

export const ALL_SCOPES = 'context:read context:write context:delete chat proxy';

export interface Endpoint {
  name: string;
  method: 'GET' | 'POST';
  /** The path of a request that would succeed for a caller holding `scope`. */
  path: string;
  scope: string;
  /** A valid body (POST) for this endpoint. */
  body?: unknown;
  area: 'context' | 'proxy' | 'chat';
}

export interface SecurityHarness {
  app: ReturnType<typeof createApp>;
  table: TestTable;
  /** The vector store, with switches that make any of its methods fail. */
  failing: ReturnType<typeof createFailingIndex>['failing'];
  vectorIds(): string[];
  /** Every JSON log line the service wrote. */
  logs: string[];
  /** Items in the table: records, sessions and replays. */
  itemCount(): Promise<number>;
  request(
    method: 'GET' | 'POST',
    path: string,
    init?: { token?: string | undefined; body?: unknown; raw?: string; headers?: Record<string, string> },
  ): Promise<{ status: number; text: string; headers: Headers }>;
  cleanup(): Promise<unknown>;
  background: ReturnType<typeof createBackgroundWork>;
}

export async function startSecurityHarness({
  env = {},
  verifier = createTokenVerifier({ kind: 'hs256', secret: TEST_SECRET }),
  wrapIndex = (index) => index,
  table: given,
  lookup,
}: {
  env?: Record<string, string>;
  verifier?: TokenVerifier;
  wrapIndex?: (index: VectorIndex) => VectorIndex;
  table?: TestTable;
  /** DNS for route A's targets (a public name resolving to a private address); the system's when unset. */
  lookup?: LookupAll;
} = {}): Promise<SecurityHarness> {
  const table = given ?? (await createTestTable('sec'));
  const exact = createMemoryIndex();
  const wrapped = createFailingIndex(exact.index);
  const logs: string[] = [];
  const logger = createJsonLogger({ level: 'debug', sink: (line) => logs.push(line) });
  const inputs: ServiceInputs = {
    config: loadConfig({ TABLE_NAME: table.tableName, PROXY_ALLOW_PRIVATE_TARGETS: 'true', ...env }),
    documentClient: table.documentClient,
    tableName: table.tableName,
    vectorIndex: wrapIndex(wrapped.index),
    clock: systemClock,
    log: (level, message, fields) => logger[level](message, fields),
  };
  const services = createServices(inputs);
  if (lookup) {
    // Route A as createProxyServices builds it, with only the guard's DNS replaced.
    const guard = createTargetGuard({
      allowPrivate: inputs.config.PROXY_ALLOW_PRIVATE_TARGETS,
      allowedHosts: inputs.config.PROXY_ALLOWED_HOSTS,
      lookup,
    });
    const timeoutMs = inputs.config.PROXY_UPSTREAM_TIMEOUT_MS;
    services.proxy.upstreamFor = (baseUrl, apiKey) => createUpstreamModel({ baseUrl, apiKey, timeoutMs, guard });
  }
  const background = createBackgroundWork((error) => logger.error('background task failed', { error: String(error) }));
  const app = createApp({
    verifier,
    logger,
    ...services,
    proxy: { ...services.proxy, background },
  } as AppDeps);

  async function itemCount(): Promise<number> {
    let count = 0;
    let start: Record<string, unknown> | undefined;
    do {
      const page = await table.documentClient.send(
        new ScanCommand({
          TableName: table.tableName,
          Select: 'COUNT',
          // Records, sessions and replays; not the tenants' visibility generations (one counter per tenant that
          // ever hid a record, kept for good: docs/ARCHITECTURE.md, "Record states and visibility").
          FilterExpression: 'sk <> :generation',
          ExpressionAttributeValues: { ':generation': 'generation' },
          ExclusiveStartKey: start,
        }),
      );
      count += page.Count ?? 0;
      start = page.LastEvaluatedKey;
    } while (start);
    return count;
  }

  return {
    app,
    table,
    failing: wrapped.failing,
    vectorIds: exact.allIds,
    logs,
    itemCount,
    background,
    async request(method, path, { token, body, raw, headers = {} } = {}) {
      const payload = method === 'GET' ? undefined : (raw ?? (body === undefined ? undefined : JSON.stringify(body)));
      const response = await app.request(path, {
        method,
        headers: {
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
          ...headers,
        },
        ...(payload === undefined ? {} : { body: payload }),
      });
      return { status: response.status, text: await response.text(), headers: response.headers };
    },
    cleanup: () =>
      runCleanup({
        repository: services.context.repository,
        index: inputs.vectorIndex,
        embedder: services.proxy.embedder,
        clock: { now: () => new Date(Date.now() + 3_600_000) },
        deadline: new Date(Date.now() + 7_200_000),
      }),
  };
}

/** Route A's path to an upstream at `stubUrl` (the key is a test value, never a real one). */
export const routeAPath = (stubUrl: string, key = 'plain-target-key-0001') =>
  `/api/v1/proxy/${stubUrl}/${key}/chat/completions`;

/** Every endpoint with a request that succeeds for a caller holding its scope (`stubUrl` serves route A). */
export function endpointsOf(stubUrl: string): Endpoint[] {
  const messages = [{ role: 'user', content: 'hello there' }];
  return [
    {
      name: 'context add',
      method: 'POST',
      path: '/api/v1/context/add',
      scope: 'context:write',
      body: { documents: [{ content: 'a note', fileName: 'n.txt' }] },
      area: 'context',
    },
    {
      name: 'context search',
      method: 'POST',
      path: '/api/v1/context/search',
      scope: 'context:read',
      body: { query: 'note', similarity_threshold: 1, minimum_similarity_threshold: 0 },
      area: 'context',
    },
    {
      name: 'context delete',
      method: 'POST',
      path: '/api/v1/context/delete',
      scope: 'context:delete',
      body: { source: 'nothing-by-this-name' },
      area: 'context',
    },
    { name: 'context view', method: 'GET', path: '/api/v1/context/view', scope: 'context:read', area: 'context' },
    {
      name: 'context view/docs',
      method: 'GET',
      path: '/api/v1/context/view/docs',
      scope: 'context:read',
      area: 'context',
    },
    {
      name: 'proxy route A',
      method: 'POST',
      path: routeAPath(stubUrl),
      scope: 'proxy',
      body: { model: 'stub-model', messages },
      area: 'proxy',
    },
    {
      name: 'proxy route B',
      method: 'POST',
      path: '/api/v1/proxy/default/chat/completions',
      scope: 'proxy',
      body: { model: 'memgate/default', messages },
      area: 'proxy',
    },
    {
      name: 'chat stream',
      method: 'POST',
      path: '/api/v1/chat/generate/stream',
      scope: 'chat',
      body: { chat_history: messages },
      area: 'chat',
    },
  ];
}

/** True when `text` is an error body in `area`'s format (DESIGN.md sections 3–5) with the given status class. */
export function isAreaError(area: Endpoint['area'], status: number, text: string): boolean {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return false;
  }
  if (typeof body !== 'object' || body === null) return false;
  const b = body as Record<string, unknown>;
  if (area === 'context') {
    const types: Record<number, string> = {
      400: 'validation_error',
      401: 'authentication_error',
      402: 'invalid_user',
      403: 'permission_error',
      404: 'not_found',
      413: 'payload_too_large',
    };
    return typeof b.response === 'string' && b.error === types[status];
  }
  if (area === 'proxy') {
    const error = b.error as Record<string, unknown> | undefined;
    return typeof error?.message === 'string' && typeof error.type === 'string' && typeof error.code === 'string';
  }
  return typeof b.message === 'string';
}

export { TEST_SECRET, tokenFor };
