/**
 * `npx tsx bench/capacity.ts [--sizes=1000,10000]`: what each operation costs in DynamoDB capacity and vector-store
 * calls, measured, not estimated. The real app (createApp over createServices, as `npm start` builds it) runs
 * in-process on DynamoDB Local with every DynamoDB call asked for `ReturnConsumedCapacity: 'TOTAL'` and every
 * vector-index call counted at the port; each operation runs against a tenant of each size, and the sums per
 * operation become a cost per million requests at on-demand prices (PRICES below, with their source and date).
 * Prints a Markdown table; writes nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createDocumentClient, createServices, ensureTable, loadConfig } from '@memgate/adapters';
import { type Principal, SCOPES, systemClock, type VectorIndex } from '@memgate/core';
import { type AppDeps, createApp, createBackgroundWork, createJsonLogger, createTokenVerifier } from '@memgate/http';
import { startDynamoLocal } from '@memgate/local/dynamo-local';
import { signLocalToken } from '@memgate/local/token';
import { createLocalVectorIndex, denseGraphFor } from '@memgate/local/vector-index/index';
import { startUpstreamStub } from '../test/support/upstream-stub.ts';
import { addBody, queryText } from './lib/corpus.ts';
import { meteredStatements } from './lib/statement-units.ts';

/**
 * On-demand prices, us-east-1. DynamoDB: $0.625 per million write request units, $0.125 per million read request
 * units (AWS's prices since the reduction of 1 November 2024, as quoted by airbyte.com's DynamoDB pricing guide;
 * read 2026-11-23). Pinecone serverless, Standard plan: $4 per million write units, $16 per million read units
 * (Pinecone's pricing page as captured on 2026-11-04 by docs.flexprice.io). Pinecone's units are not measured here
 * (its emulator reports none): a query costs read units in proportion to the namespace's size, an upsert write
 * units by the bytes written; the calls and vectors are counted instead.
 */
const PRICES = { dynamoWrite: 0.625, dynamoRead: 0.125 };

interface Usage {
  read: number;
  write: number;
  requests: number;
  upserts: number;
  upserted: number;
  queries: number;
  deletes: number;
}
const zero = (): Usage => ({ read: 0, write: 0, requests: 0, upserts: 0, upserted: 0, queries: 0, deletes: 0 });
let usage = zero();

function countingIndex(inner: VectorIndex): VectorIndex {
  return {
    upsert: (namespace, items) => {
      usage.upserts += 1;
      usage.upserted += items.length;
      return inner.upsert(namespace, items);
    },
    query: (namespace, query) => {
      usage.queries += 1;
      return inner.query(namespace, query);
    },
    delete: (namespace, ids) => {
      usage.deletes += 1;
      return inner.delete(namespace, ids);
    },
    listIds: (namespace, options) => inner.listIds(namespace, options),
    listNamespaces: () => inner.listNamespaces(),
    // Search's and the add's verdicts (the embedded index has the capability): not a vector read or write.
    ...(inner.confirm ? { confirm: inner.confirm.bind(inner) } : {}),
  };
}

type Capacity = { ReadCapacityUnits?: number; WriteCapacityUnits?: number; CapacityUnits?: number };

const sizes = (process.argv.find((arg) => arg.startsWith('--sizes='))?.slice('--sizes='.length) ?? '1000,10000')
  .split(',')
  .map(Number);
const dir = mkdtempSync(join('/dev/shm', 'memgate-capacity-'));
const dynamo = await startDynamoLocal({ dataDir: join(dir, 'dynamodb') });
const documentClient = createDocumentClient({ endpoint: dynamo.endpoint });
// Reads and shadow writes of meteredStatements, not counted.
const unmetered = createDocumentClient({ endpoint: dynamo.endpoint });
const SHADOW = 'memgate-shadow';
await ensureTable(unmetered, SHADOW);
const READS = /^(BatchGet|Get|Query|Scan)/;
documentClient.middlewareStack.add(
  (next, context) => async (args) => {
    const input = args.input as Record<string, unknown>;
    input.ReturnConsumedCapacity = 'TOTAL';
    if (context.commandName === 'BatchExecuteStatementCommand') {
      // DynamoDB Local reports no capacity for PartiQL: measured again on a shadow table (lib/statement-units.ts).
      const { output, units } = await meteredStatements(unmetered, 'memgate', SHADOW, input.Statements as never[], () =>
        next(args),
      );
      usage.requests += 1;
      usage.write += units;
      return output;
    }
    const result = await next(args);
    const consumed = (result.output as { ConsumedCapacity?: Capacity | Capacity[] }).ConsumedCapacity;
    usage.requests += 1;
    const reads = READS.test(String(context.commandName));
    for (const entry of Array.isArray(consumed) ? consumed : consumed ? [consumed] : []) {
      // Per-table totals: a read operation's units are read units, any other operation's write units.
      if (reads) usage.read += entry.ReadCapacityUnits ?? entry.CapacityUnits ?? 0;
      else usage.write += entry.WriteCapacityUnits ?? entry.CapacityUnits ?? 0;
    }
    return result;
  },
  { step: 'initialize', name: 'consumedCapacity' },
);
const secret = 'memgate-capacity-secret-0123456789abcdef';
const config = loadConfig({
  DATA_DIR: dir,
  DYNAMODB_ENDPOINT: dynamo.endpoint,
  TABLE_NAME: 'memgate',
  AUTH_JWT_SECRET: secret,
  PROXY_ALLOW_PRIVATE_TARGETS: 'true',
  LOG_LEVEL: 'error',
});
await ensureTable(documentClient, 'memgate');
const vectorIndex = await createLocalVectorIndex({
  dir: join(dir, 'vectors'),
  denseGraph: denseGraphFor(config.EMBEDDINGS),
});
const services = createServices({
  config,
  documentClient,
  tableName: 'memgate',
  vectorIndex: countingIndex(vectorIndex),
  clock: systemClock,
  log: () => {},
});
const background = createBackgroundWork((error) => {
  throw error;
});
const app = createApp({
  verifier: createTokenVerifier({ kind: 'hs256', secret }),
  logger: createJsonLogger({ level: 'error' }),
  ...services,
  proxy: { ...services.proxy, background },
} as AppDeps);
const stub = await startUpstreamStub();

/** Runs set-up work whose usage is not the operation's. */
async function uncounted(run: () => Promise<unknown>): Promise<void> {
  const saved = { ...usage };
  await run();
  usage = saved;
}

async function measure(runs: number, run: (i: number) => Promise<void>): Promise<Usage> {
  await run(-1); // warm-up, not counted
  usage = zero();
  for (let i = 0; i < runs; i++) await run(i);
  const total = usage;
  const per = zero();
  for (const key of Object.keys(per) as (keyof Usage)[]) per[key] = total[key] / runs;
  return per;
}

async function call(method: string, path: string, token: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await app.request(path, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path}: ${response.status} ${text.slice(0, 200)}`);
  return text;
}

const rows: { operation: string; size: number; usage: Usage; per?: string }[] = [];
for (const size of sizes) {
  const user = `capacity-${size}`;
  const principal: Principal = { userId: user, orgs: [], scopes: new Set<string>(SCOPES) };
  for (let call = 0; call * 1000 < size; call++) {
    await services.context.store.add(
      principal,
      addBody({ firstSeed: call * 100, documents: 100, chunksPerDocument: 10 }),
    );
  }
  const token = await signLocalToken(secret, { user, orgs: [], scope: [...SCOPES].join(' ') });
  let seed = 50_000_000 + size;
  const add = await measure(5, async () => {
    await call(
      'POST',
      '/api/v1/context/add',
      token,
      addBody({ firstSeed: seed++ * 10, documents: 10, chunksPerDocument: 10 }),
    );
  });
  // Per chunk: an add of 10 documents × 10 chunks writes 100 chunks.
  const perChunk = zero();
  for (const key of Object.keys(perChunk) as (keyof Usage)[]) perChunk[key] = add[key] / 100;
  rows.push({ operation: 'add (per chunk; adds of 10 documents × 10 chunks)', size, usage: perChunk });
  const search = (query: string) =>
    call('POST', '/api/v1/context/search', token, {
      query,
      top_k: 10,
      similarity_threshold: 1,
      minimum_similarity_threshold: 0,
    });
  // Search's visibility verdicts (docs/ARCHITECTURE.md): a search reads its tenant's generation tag (a read unit),
  // then the rows of the hits neither the index's confirmations nor the cache vouch for. First, new queries right
  // after the adds (no hide since: their hits were confirmed by the add that wrote them); cold: the generation bumped
  // before each search (as a delete in the tenant would), so every hit's rows are read; warm: the same query again;
  // distinct: new queries, each finding confirmed whatever earlier ones of the run read.
  rows.push({
    operation: 'search (top_k 10), hits confirmed by their add',
    size,
    usage: await measure(20, async (i) => {
      await search(queryText(i + 6000));
    }),
  });
  rows.push({
    operation: 'search (top_k 10), cold cache',
    size,
    usage: await measure(20, async (i) => {
      await uncounted(() => services.context.repository.bumpGenerations([`user:${user}`]));
      await search(queryText(i + 1000));
    }),
  });
  rows.push({
    operation: 'search (top_k 10), warm cache (the query again)',
    size,
    usage: await measure(20, async (i) => {
      await uncounted(() => search(queryText(i + 3000)));
      await search(queryText(i + 3000));
    }),
  });
  rows.push({
    operation: 'search (top_k 10), distinct queries',
    size,
    usage: await measure(20, async (i) => {
      await search(queryText(i + 4000));
    }),
  });
  rows.push({
    operation: 'view (limit 100)',
    size,
    usage: await measure(10, async () => {
      await call('GET', '/api/v1/context/view?limit=100', token);
    }),
  });
  rows.push({
    operation: 'view/docs (limit 100)',
    size,
    usage: await measure(10, async () => {
      await call('GET', '/api/v1/context/view/docs?limit=100', token);
    }),
  });
  rows.push({
    operation: 'delete (by_doc, a document of 10 chunks)',
    size,
    usage: await measure(5, async () => {
      const source = `gone-${seed}`;
      await uncounted(() =>
        services.context.store.add(
          principal,
          addBody({ firstSeed: seed++ * 10, documents: 1, chunksPerDocument: 10, source }),
        ),
      );
      await call('POST', '/api/v1/context/delete', token, { source });
    }),
  });
  rows.push({
    operation: 're-add (the same document of 10 chunks again)',
    size,
    usage: await measure(5, async () => {
      const body = addBody({ firstSeed: seed++ * 10, documents: 1, chunksPerDocument: 10, source: `again-${seed}` });
      await uncounted(() => services.context.store.add(principal, body));
      await call('POST', '/api/v1/context/add', token, body);
    }),
  });
  rows.push({
    operation: 're-add, the document changed (its tags; 10 chunks)',
    size,
    usage: await measure(5, async () => {
      const body = addBody({ firstSeed: seed++ * 10, documents: 1, chunksPerDocument: 10, source: `again-${seed}` });
      await uncounted(() => services.context.store.add(principal, body));
      await call('POST', '/api/v1/context/add', token, { ...body, tags: ['revised'] });
    }),
  });
  const messages = [
    { role: 'system', content: 'You answer from the context.' },
    ...Array.from({ length: 9 }, (_, i) => [
      { role: 'user', content: `question ${i} about ${queryText(i)}` },
      { role: 'assistant', content: `answer ${i}` },
    ]).flat(),
    { role: 'user', content: `what about ${queryText(7)}?` },
  ];
  const proxyPath = `/api/v1/proxy/${encodeURIComponent(stub.url)}/sk-capacity/chat/completions`;
  rows.push({
    operation: 'proxy with defaults (filter, context, capture)',
    size,
    usage: await measure(10, async () => {
      await call('POST', proxyPath, token, { model: 'gpt-4o-mini', messages });
      await background.idle();
    }),
  });
  rows.push({
    operation: 'chat turn (new session)',
    size,
    usage: await measure(10, async (i) => {
      await call('POST', '/api/v1/chat/generate/stream', token, {
        chat_history: [{ role: 'user', content: `tell me about ${queryText(i + 2000)}` }],
      });
    }),
  });
}

const money = (units: number, price: number) => (units * price).toFixed(2);
const lines = [
  '| operation | tenant chunks | read units | write units | DynamoDB requests | vector upserts (vectors) | vector queries | vector deletes | DynamoDB $ per million |',
  '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ...rows.map(
    ({ operation, size, usage: u }) =>
      `| ${operation} | ${size} | ${u.read.toFixed(2)} | ${u.write.toFixed(2)} | ${u.requests.toFixed(2)} | ${u.upserts.toFixed(2)} (${u.upserted.toFixed(1)}) | ${u.queries.toFixed(2)} | ${u.deletes.toFixed(2)} | ${(Number(money(u.read, PRICES.dynamoRead)) + Number(money(u.write, PRICES.dynamoWrite))).toFixed(2)} |`,
  ),
];
process.stdout.write(`${lines.join('\n')}\n`);
await stub.close();
await vectorIndex.close();
documentClient.destroy();
unmetered.destroy();
await dynamo.stop();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
