import { existsSync } from 'node:fs';
import { ConfigSchema, TABLE_KEYS, tableDefinition } from '@memgate/adapters';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BUNDLES_HOOK_TIMEOUT_MS, buildTestBundles } from '../support/bundles.ts';
import { installRecordingSst, type Recorded, recorded, routes } from './recording-sst.ts';

// Every route of the spec (section 4) and the function that must serve it: API Gateway for the context store,
// a streaming function URL for the SSE endpoints.
const SPEC_ROUTES = {
  'POST /api/v1/context/add': { via: 'api', bundle: 'context-add' },
  'POST /api/v1/context/search': { via: 'api', bundle: 'context-search' },
  'POST /api/v1/context/delete': { via: 'api', bundle: 'context-delete' },
  'GET /api/v1/context/view': { via: 'api', bundle: 'context-view' },
  'GET /api/v1/context/view/docs': { via: 'api', bundle: 'context-view-docs' },
  'POST /api/v1/proxy/{proxyUrl}/{target_api_key}/chat/completions': { via: 'url', bundle: 'proxy' },
  'POST /api/v1/proxy/default/chat/completions': { via: 'url', bundle: 'proxy' },
  'POST /api/v1/chat/generate/stream': { via: 'url', bundle: 'chat-stream' },
  'GET /api/v1/chat/replay/{replaySessionID}': { via: 'url', bundle: 'chat-stream' },
  // Issue 14: the API reference on the API's host, its script from the function (no CDN).
  'GET /api/v1/openapi.json': { via: 'api', bundle: 'docs' },
  'GET /docs': { via: 'api', bundle: 'docs' },
  'GET /docs/{file}': { via: 'api', bundle: 'docs' },
} as const;

// What each function uses, and so all it may receive: the table, plus these secrets.
const CONTEXT = ['AuthJwtSecret', 'EmbeddingsApiKey', 'PineconeApiKey'];
const MODEL = ['AuthJwtSecret', 'DefaultModelApiKey', 'EmbeddingsApiKey', 'PineconeApiKey'];
const SECRETS_BY_BUNDLE: Record<string, string[]> = {
  'context-add': CONTEXT,
  'context-search': CONTEXT,
  'context-delete': CONTEXT,
  'context-view': CONTEXT,
  'context-view-docs': CONTEXT,
  proxy: MODEL,
  'chat-stream': MODEL,
  cleanup: ['EmbeddingsApiKey', 'PineconeApiKey'],
  mcp: CONTEXT,
};
/** The docs function reads no data: no table, no secret; only where the proxy and the chat answer. */
// The deployer's shell at `sst deploy` (docs/DEPLOY.md): the functions refuse to start without the index's host.
const PINECONE_HOST = 'https://memgate-abc123.svc.aped-4627-b74a.pinecone.io';
const TOUCHES_NO_DATA = new Set(['docs']);

let outputs: Record<string, unknown>;
let app: Record<string, unknown>;
let built: Awaited<ReturnType<typeof buildTestBundles>>;

const functions = () => recorded.filter((item) => item.kind === 'Function');
const bundleOf = (fn: Recorded) => String(fn.args.bundle).replace('dist/functions/', '');
const functionFor = (bundle: string) => functions().find((fn) => bundleOf(fn) === bundle) as Recorded;

beforeAll(async () => {
  installRecordingSst('prod');
  vi.stubEnv('PINECONE_HOST', PINECONE_HOST);
  const config = (await import('../../sst.config.ts')).default as unknown as {
    app(input: { stage: string }): Record<string, unknown>;
    run(): Promise<Record<string, unknown>>;
  };
  app = config.app({ stage: 'prod' });
  outputs = await config.run();
  built = await buildTestBundles();
}, BUNDLES_HOOK_TIMEOUT_MS);

afterAll(() => {
  vi.unstubAllEnvs();
  built?.remove();
});

describe('sst.config.ts', () => {
  it('names the app, deploys to AWS and keeps prod data on removal', () => {
    expect(app).toMatchObject({ name: 'memgate', home: 'aws', removal: 'retain' });
  });

  it('serves every spec route from an existing function whose bundle exports handler', () => {
    for (const [route, { via, bundle }] of Object.entries(SPEC_ROUTES)) {
      const fn = functionFor(bundle);
      expect(fn, route).toBeDefined();
      expect(existsSync(`functions/${bundle}.ts`), route).toBe(true);
      expect(built.bundles.get(bundle)?.exports, route).toContain('handler');
      expect(fn.args).toMatchObject({ handler: 'index.handler', runtime: 'nodejs24.x' });
      if (via === 'api') {
        const target = routes.find((item) => item.route === route);
        expect(target?.handler, route).toEqual({ functionArn: fn.name });
      } else {
        expect(routes.some((item) => item.route === route)).toBe(false);
      }
    }
    // Context paths: 5 × 6 methods (next test); the docs: 3.
    expect(routes).toHaveLength(5 * 6 + 3);
  });

  it('sends every method of a context path to its function (its 405 names the right one), leaving preflights to CORS', () => {
    const contextPaths = Object.entries(SPEC_ROUTES).filter(([route]) => route.includes('/context/'));
    for (const [route, { bundle }] of contextPaths) {
      const path = route.split(' ')[1] as string;
      const fn = functionFor(bundle);
      const routed = routes.filter((item) => item.route.endsWith(` ${path}`));
      expect(routed.map((item) => item.route.split(' ')[0]).sort(), path).toEqual(
        ['DELETE', 'GET', 'HEAD', 'PATCH', 'POST', 'PUT'].sort(),
      );
      for (const item of routed) expect(item.handler, item.route).toEqual({ functionArn: fn.name });
    }
    // No OPTIONS or ANY route: a browser's preflight is answered by API Gateway from this configuration.
    expect(routes.filter((item) => /^(OPTIONS|ANY) /.test(item.route))).toEqual([]);
    const gateway = recorded.find((item) => item.kind === 'ApiGatewayV2');
    expect(gateway?.args.cors).toMatchObject({
      allowOrigins: ['*'],
      allowMethods: expect.arrayContaining(['GET', 'POST']),
      allowHeaders: expect.arrayContaining(['authorization', 'content-type']),
    });
  });

  it('streams the SSE endpoints through function URLs with CORS, and nothing else', () => {
    for (const fn of functions()) {
      const sse = ['proxy', 'chat-stream'].includes(bundleOf(fn));
      expect(Boolean(fn.args.streaming), fn.name).toBe(sse);
      expect(Boolean(fn.args.url), fn.name).toBe(sse || bundleOf(fn) === 'mcp');
      if (sse) {
        expect(fn.args.url).toMatchObject({ authorization: 'none', cors: { allowOrigins: ['*'] } });
        const { allowHeaders } = (fn.args.url as { cors: { allowHeaders: string[] } }).cors;
        // The openai SDK in a browser asks the preflight for its platform headers: refused, it never sends a call.
        expect(allowHeaders).toEqual(
          expect.arrayContaining(['authorization', 'x-stainless-os', 'x-stainless-timeout']),
        );
      }
    }
    expect(outputs).toMatchObject({
      api: 'https://api.test',
      proxy: 'https://proxy.lambda-url.test/',
      chat: 'https://chatstream.lambda-url.test/',
    });
  });

  it('serves MCP from its own buffered function URL at <url>/mcp, open to browser clients with a bearer token', () => {
    const mcp = functionFor('mcp');
    expect(existsSync('functions/mcp.ts')).toBe(true);
    expect(built.bundles.get('mcp')?.exports).toContain('handler');
    expect(mcp.args).toMatchObject({ handler: 'index.handler', runtime: 'nodejs24.x', url: { authorization: 'none' } });
    expect(mcp.args.streaming).toBeFalsy(); // one JSON answer per message: nothing to stream
    const cors = (mcp.args.url as { cors: { allowOrigins: string[]; allowHeaders: string[]; exposeHeaders: string[] } })
      .cors;
    expect(cors.allowOrigins).toEqual(['*']);
    expect(cors.allowHeaders).toEqual(
      expect.arrayContaining(['authorization', 'content-type', 'mcp-protocol-version']),
    );
    expect(cors.exposeHeaders).toContain('www-authenticate');
    expect(routes.some((item) => item.route.includes('/mcp'))).toBe(false);
    expect(outputs.mcp).toEqual({ interpolate: ['', 'mcp'], values: ['https://mcp.lambda-url.test/'] });
  });

  it('invokes the cleanup every 15 minutes, with a timeout to stop before', () => {
    const cron = recorded.filter((item) => item.kind === 'Cron');
    expect(cron).toHaveLength(1);
    const cleanup = functionFor('cleanup');
    expect(cron[0]?.args).toEqual({ schedule: 'rate(15 minutes)', function: { functionArn: cleanup.name } });
    expect(cleanup.args.timeout).toBe('5 minutes');
    expect(built.bundles.get('cleanup')?.exports).toContain('handler');
  });

  it('defines the table with the keys and indexes of TABLE_KEYS, TTL and point-in-time recovery', () => {
    const tables = recorded.filter((item) => item.kind === 'Dynamo');
    expect(tables).toHaveLength(1);
    const args = tables[0]?.args as {
      fields: Record<string, string>;
      primaryIndex: unknown;
      globalIndexes: Record<string, { hashKey: string; rangeKey: string; projection: string | string[] }>;
      ttl: string;
      transform: { table(args: Record<string, unknown>): void };
    };
    const definition = tableDefinition('x');
    expect(args.primaryIndex).toEqual({ hashKey: TABLE_KEYS.partition, rangeKey: TABLE_KEYS.sort });
    expect(Object.keys(args.fields).sort()).toEqual(
      definition.AttributeDefinitions?.map((attribute) => attribute.AttributeName).sort(),
    );
    const indexes = definition.GlobalSecondaryIndexes ?? [];
    expect(Object.keys(args.globalIndexes).sort()).toEqual(indexes.map((index) => index.IndexName).sort());
    for (const index of indexes) {
      expect(args.globalIndexes[index.IndexName as string]).toEqual({
        hashKey: index.KeySchema?.[0]?.AttributeName,
        rangeKey: index.KeySchema?.[1]?.AttributeName,
        projection: index.Projection?.ProjectionType === 'ALL' ? 'all' : index.Projection?.NonKeyAttributes,
      });
    }
    // Delete by document pages through the slim index: the attributes it matches and hides by, not the whole row.
    expect(args.globalIndexes.documentNamesByTenant).toEqual({
      hashKey: 'gsi3pk',
      rangeKey: 'gsi3sk',
      projection: ['_id', 'user_id', 'status', 'tenant', 'source', 'metadata'],
    });
    expect(args.ttl).toBe(TABLE_KEYS.ttl);
    const table: Record<string, unknown> = {};
    args.transform.table(table);
    expect(table.pointInTimeRecovery).toEqual({ enabled: true });
  });

  it('serves the API reference from a function that touches no data, naming the streaming URLs', () => {
    const docs = functionFor('docs');
    expect(docs.args.link).toBeUndefined();
    expect(docs.args.environment).toEqual({
      MEMGATE_PROXY_URL: 'https://proxy.lambda-url.test/',
      MEMGATE_CHAT_URL: 'https://chatstream.lambda-url.test/',
    });
    expect(outputs.docs).toEqual({ interpolate: ['', '/docs'], values: ['https://api.test'] });
  });

  it('links every function to the table and gives it only the secrets it uses', () => {
    const table = recorded.find((item) => item.kind === 'Dynamo');
    expect(functions().map(bundleOf).sort()).toEqual([...Object.keys(SECRETS_BY_BUNDLE), ...TOUCHES_NO_DATA].sort());
    for (const fn of functions().filter((item) => !TOUCHES_NO_DATA.has(bundleOf(item)))) {
      const env = fn.args.environment as Record<string, unknown>;
      expect(
        (fn.args.link as { id: string }[]).map((item) => item.id),
        fn.name,
      ).toEqual([table?.name]);
      const secrets = Object.values(env)
        .filter(
          (value): value is { secret: string } => typeof value === 'object' && value !== null && 'secret' in value,
        )
        .map((value) => value.secret)
        .sort();
      expect(secrets, fn.name).toEqual(SECRETS_BY_BUNDLE[bundleOf(fn)]);
      expect(env).toMatchObject({ VECTOR_STORE: 'pinecone', TABLE_NAME: { tableName: table?.name } });
      // functions/runtime/aws.ts refuses to start without it: each cold start would fail.
      expect(env.PINECONE_HOST, fn.name).toBe(PINECONE_HOST);
      // Every variable is one the service reads: a typo here would silently fall back to a default.
      for (const name of Object.keys(env)) expect(Object.keys(ConfigSchema.shape), name).toContain(name);
      expect(fn.args.memory, fn.name).toMatch(/^\d+ MB$/);
    }
  });

  it('stops a deploy whose environment lacks PINECONE_HOST, naming it, instead of shipping functions that cannot start', async () => {
    const { lambda } = await import('../../infra/functions.ts');
    const before = recorded.length;
    const deploy = () =>
      lambda('Missing', { bundle: 'cleanup', memory: '512 MB', timeout: '5 minutes', secrets: ['pineconeApiKey'] });
    for (const unset of [undefined, '']) {
      vi.stubEnv('PINECONE_HOST', unset);
      expect(deploy).toThrow(/set PINECONE_HOST in the environment of `sst deploy`/);
    }
    vi.stubEnv('PINECONE_HOST', PINECONE_HOST);
    expect(recorded).toHaveLength(before); // no function was declared without it
  });

  it('declares the secrets with placeholders only where the setting is optional', () => {
    const secrets = recorded.filter((item) => item.kind === 'Secret');
    expect(Object.fromEntries(secrets.map((secret) => [secret.name, secret.args]))).toEqual({
      PineconeApiKey: {},
      EmbeddingsApiKey: { placeholder: '' },
      DefaultModelApiKey: { placeholder: '' },
      AuthJwtSecret: { placeholder: '' },
    });
  });
});
