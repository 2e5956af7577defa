/**
 * Where one search's time goes, in process: the bench's seeded corpora (restored from the corpus cache, or from
 * `--corpus=<dir>` holding a cached `data` directory), DynamoDB Local, and the server's own app (`createApp` over
 * `createServices`, as `npm start` builds it) called through `app.request`, so everything but the socket runs:
 * auth, validation, embedding, the index query, the batch read, JSON, the request log. For each corpus size:
 * the median per search of the index query, the DynamoDB calls (round trip, seen from the client), the record rows
 * read (search's visibility cache serves the others) and the whole request, then a CPU profile of the same searches
 * by area (self time). `--cache=compare` instead alternates, search by search, two apps over the same DynamoDB Local
 * and index, one with the visibility cache (SEARCH_CACHE_MB default) and one without (0), and prints both. Run:
 * `npx tsx bench/search-profile.ts [--corpus=<dir>] [--sizes=10000,100000] [--searches=300] [--cache=compare]`.
 */
import { closeSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join } from 'node:path';
import { createDocumentClient, createServices, loadConfig } from '@memgate/adapters';
import { systemClock, type VectorIndex } from '@memgate/core';
import { type AppDeps, createApp, createJsonLogger, createTokenVerifier } from '@memgate/http';
import { startDynamoLocal } from '@memgate/local/dynamo-local';
import { signLocalToken } from '@memgate/local/token';
import { createLocalVectorIndex } from '@memgate/local/vector-index/index';
import { queryText } from './lib/corpus.ts';
import { corpusKey, restoreCorpus } from './lib/corpus-cache.ts';
import { TABLE_NAME } from './lib/env.ts';
import { type CpuProfile, selfTimeByArea } from './lib/profile-areas.ts';

const arg = (name: string) => process.argv.find((value) => value.startsWith(`--${name}=`))?.slice(name.length + 3);
const sizes = (arg('sizes') ?? '10000,100000').split(',').map(Number);
const searches = Number(arg('searches') ?? 300);
const compare = arg('cache') === 'compare';
const SECRET = 'memgate-search-profile-secret-0123456789';
const label = (size: number) => `${size / 1000}k`;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : (sorted[Math.floor(sorted.length / 2)] as number);
};

const dataDir = mkdtempSync(join('/dev/shm', 'memgate-profile-'));
const corpus = arg('corpus');
if (corpus) {
  const { cpSync } = await import('node:fs');
  cpSync(join(corpus, 'data'), dataDir, { recursive: true });
} else if (!restoreCorpus(corpusKey([1000, 10_000, 100_000]), dataDir)) {
  throw new Error('no cached corpus for this code: run `npm run bench` once, or pass --corpus=<dir>');
}
const dynamo = await startDynamoLocal({ dataDir });
const devNull = openSync('/dev/null', 'w');
const documentClient = createDocumentClient({ endpoint: dynamo.endpoint });
const vectorIndex = await createLocalVectorIndex({ dir: `${dataDir}/vectors`, denseGraph: false });
try {
  // Timed wrappers: the index query and each DynamoDB call, wall clock, per search.
  let indexMs = 0;
  let dynamoMs = 0;
  let dynamoCalls = 0;
  let rowsRead = 0;
  const timedIndex: VectorIndex = {
    ...vectorIndex,
    async query(namespace, query) {
      const started = performance.now();
      try {
        return await vectorIndex.query(namespace, query);
      } finally {
        indexMs += performance.now() - started;
      }
    },
  };
  const send = documentClient.send.bind(documentClient) as (command: unknown) => Promise<unknown>;
  (documentClient as { send: unknown }).send = async (command: unknown) => {
    // Record rows a BatchGetItem asks for (sort key `ctx`), not the tenants' generation rows.
    const items = (command as { input?: { RequestItems?: Record<string, { Keys?: { sk?: string }[] }> } }).input
      ?.RequestItems;
    for (const table of Object.values(items ?? {})) rowsRead += (table.Keys ?? []).filter((k) => k.sk === 'ctx').length;
    const started = performance.now();
    try {
      return await send(command);
    } finally {
      dynamoMs += performance.now() - started;
      dynamoCalls++;
    }
  };
  const appWith = (cacheMb?: string) => {
    const config = loadConfig({
      DATA_DIR: dataDir,
      DYNAMODB_ENDPOINT: dynamo.endpoint,
      TABLE_NAME,
      AUTH_JWT_SECRET: SECRET,
      ...(cacheMb === undefined ? {} : { SEARCH_CACHE_MB: cacheMb }),
    });
    const logger = createJsonLogger({ level: config.LOG_LEVEL, sink: (line) => writeSync(devNull, `${line}\n`) });
    const services = createServices({
      config,
      documentClient,
      tableName: TABLE_NAME,
      vectorIndex: timedIndex,
      clock: systemClock,
      log: (level, message, fields) => logger[level](message, fields),
    });
    const verifier = createTokenVerifier({ kind: 'hs256', secret: SECRET });
    return createApp({ verifier, logger, ...services } as AppDeps);
  };
  const app = appWith(process.env.SEARCH_CACHE_MB);
  const uncached = compare ? appWith('0') : app;

  for (const size of sizes) {
    const token = await signLocalToken(SECRET, { user: `corpus-${label(size)}` });
    const search = async (seed: number, through = app) => {
      const response = await through.request('/api/v1/context/search', {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ query: queryText(seed), similarity_threshold: 1, minimum_similarity_threshold: 0 }),
      });
      const body = (await response.json()) as { results: unknown[] };
      if (response.status !== 202 || body.results.length !== 10) throw new Error(`search: ${response.status}`);
    };
    for (let i = 0; i < 100; i++) await search(5000 + i); // loads the tenant's index, warms the JIT
    if (compare) {
      for (let i = 0; i < 100; i++) await search(5000 + i, uncached);
      const modes = { cache: app, 'no cache': uncached };
      const rows = new Map(
        Object.keys(modes).map((mode) => [
          mode,
          { total: [] as number[], dynamo: [] as number[], rows: [] as number[] },
        ]),
      );
      for (let i = 0; i < searches; i++) {
        // Both modes run query i, in alternating order, so neither always finds the other's work in DynamoDB's cache.
        const order = i % 2 === 0 ? Object.entries(modes) : Object.entries(modes).reverse();
        for (const [mode, through] of order) {
          dynamoMs = 0;
          rowsRead = 0;
          const started = performance.now();
          await search(i, through);
          const row = rows.get(mode);
          row?.total.push(performance.now() - started);
          row?.dynamo.push(dynamoMs);
          row?.rows.push(rowsRead);
        }
      }
      for (const [mode, row] of rows) {
        const mean = row.rows.reduce((sum, n) => sum + n, 0) / row.rows.length;
        const none = row.rows.filter((n) => n === 0).length / row.rows.length;
        console.log(
          `${label(size)} chunks, ${mode}: median per search ${median(row.total).toFixed(2)} ms, DynamoDB ` +
            `${median(row.dynamo).toFixed(2)} ms; record rows read per search ${mean.toFixed(1)} (mean), ` +
            `${(100 * none).toFixed(0)}% of searches read none`,
        );
      }
      continue;
    }
    const rows = {
      total: [] as number[],
      index: [] as number[],
      dynamo: [] as number[],
      calls: [] as number[],
      rows: [] as number[],
    };
    const session = new Session();
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 100 });
    await session.post('Profiler.start');
    for (let i = 0; i < searches; i++) {
      indexMs = 0;
      dynamoMs = 0;
      dynamoCalls = 0;
      rowsRead = 0;
      const started = performance.now();
      await search(i);
      rows.total.push(performance.now() - started);
      rows.rows.push(rowsRead);
      rows.index.push(indexMs);
      rows.dynamo.push(dynamoMs);
      rows.calls.push(dynamoCalls);
    }
    const { profile } = (await session.post('Profiler.stop')) as { profile: CpuProfile };
    session.disconnect();
    const total = median(rows.total);
    console.log(
      `\n${label(size)} chunks, ${searches} searches in process (no socket): median per search ${total.toFixed(2)} ms; ` +
        `index query ${median(rows.index).toFixed(2)} ms; DynamoDB ${median(rows.dynamo).toFixed(2)} ms in ${median(rows.calls)} call(s); ` +
        `the rest ${(total - median(rows.index) - median(rows.dynamo)).toFixed(2)} ms; record rows read per search ` +
        `${(rows.rows.reduce((sum, n) => sum + n, 0) / searches).toFixed(1)} (mean), ` +
        `${((100 * rows.rows.filter((n) => n === 0).length) / searches).toFixed(0)}% of searches read none`,
    );
    const areas = selfTimeByArea(profile);
    const busy = areas.reduce((sum, area) => sum + (area.name === 'idle' ? 0 : area.ms), 0);
    console.log(`CPU of this process per search (self time by area; idle = waiting, mostly on DynamoDB Local):`);
    for (const area of areas) {
      console.log(
        `  ${area.name.padEnd(48)} ${(area.ms / searches).toFixed(3)} ms  ${area.name === 'idle' ? '' : `${((100 * area.ms) / busy).toFixed(1)}%`}`,
      );
    }
  }
} finally {
  await vectorIndex.close();
  documentClient.destroy();
  await dynamo.stop();
  closeSync(devNull);
  rmSync(dataDir, { recursive: true, force: true });
}
