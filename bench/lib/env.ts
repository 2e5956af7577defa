import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '@memgate/adapters';
import { type DynamoLocal, startDynamoLocal } from '@memgate/local/dynamo-local';
import { signLocalToken } from '@memgate/local/token';
import { corpusKey, latestCorpusKey, restoreCorpus, saveCorpus } from './corpus-cache.ts';
import { type PortkeyGateway, startPortkey } from './portkey.ts';
import { RssLog } from './rss.ts';
import { type CorpusSpec, type SeedReport, seedCorpora } from './seed.ts';
import { type ServerChild, startServerChild } from './server.ts';
import { startTimedStreamStub, type TimedStreamStub } from './timed-stub.ts';
import { type BenchUpstream, startBenchUpstream, upstreamPlaceOf } from './upstream.ts';

const SECRET = 'memgate-bench-secret-0123456789abcdef';
export const TABLE_NAME = 'memgate';
/**
 * The server drops a tenant unused this long from memory (LOCAL_INDEX_UNLOAD_AFTER_MS; the product's default is
 * 10 minutes): a minute, so the memory area can read the idle RSS after the loads within the run.
 */
export const UNLOAD_AFTER_MS = 60_000;

/** A seeded corpus: `size` chunks in the tenant of `user`. */
export interface Corpus extends CorpusSpec {
  size: number;
}

/** Everything the areas share in one run: the local server, DynamoDB Local, the upstream stubs, the proxy peer. */
export interface BenchEnv {
  quick: boolean;
  server: ServerChild;
  dataDir: string;
  /** DynamoDB Local, shared by the server and the raw BatchWrite baseline. */
  dynamo: DynamoLocal;
  documentClient: DynamoDBDocumentClient;
  /** The seeded corpora, smallest first. */
  corpora: Corpus[];
  /**
   * How the corpora were seeded; `cached` when restored from an earlier run, `seededBy` the cache key of the other
   * code that seeded them when `--reuse-corpus` restored those.
   */
  seed: SeedReport & { cached: boolean; seededBy?: string };
  /** The server's RSS at points of the run (idle after start, under each load). */
  rss: RssLog;
  /** The test suite's OpenAI-compatible stub (non-streaming answers), in this process unless BENCH_UPSTREAM=child. */
  stub: BenchUpstream;
  /** A streaming stub that stamps each chunk with its send time, in this process (one clock: timed-stub.ts). */
  timedStub: TimedStreamStub;
  timedStubChunks: number;
  timedStubIntervalMs: number;
  portkey: PortkeyGateway;
  /** A service token of `user` with every scope but context:admin. */
  token(user: string): Promise<string>;
  /** memgate's route A URL that targets `upstreamBase` (key in the path, as clients use it). */
  proxyUrl(upstreamBase: string): string;
  close(): Promise<void>;
}

/**
 * The server's settings a run may set in its own environment, passed on for a before/after on the same corpus and
 * machine: `SEARCH_CACHE_MB=0` (search's visibility cache off: every hit's rows read), `LOCAL_MEMORY_SOFT_LIMIT_MB=0`
 * (the server without its memory limit; README "Configuration"), `BENCH_MEMORY_TRACE=<file>` (diagnosis: the
 * server's memory breakdown every 100 ms into that file, bench/lib/server-child.ts), and `JDK_JAVA_OPTIONS` (the JVM
 * options of a DynamoDB Local the server starts itself, bench/add-profile.ts; dynamo-local.ts puts them after its own).
 */
const PASSED_ON = ['SEARCH_CACHE_MB', 'LOCAL_MEMORY_SOFT_LIMIT_MB', 'BENCH_MEMORY_TRACE', 'JDK_JAVA_OPTIONS'] as const;

export const passedOnOf = (env: NodeJS.ProcessEnv): Record<string, string> =>
  Object.fromEntries(PASSED_ON.flatMap((name) => (env[name] === undefined ? [] : [[name, env[name]]])));

/** The MALLOC_* variables of the bench's own environment, for the server process (its environment is explicit). */
export const mallocSettingsOf = (env: NodeJS.ProcessEnv): Record<string, string> =>
  Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[0].startsWith('MALLOC_') && !!entry[1]),
  );

const stopOf = (part: object): (() => Promise<void>) =>
  'stop' in part ? (part as { stop(): Promise<void> }).stop : (part as { close(): Promise<void> }).close;

const corpusUser = (size: number) => `corpus-${size >= 1000 ? `${size / 1000}k` : size}`;

/**
 * Starts the shared fixtures: DynamoDB Local, the seeded corpora (in-process, through the real context store, before
 * the server opens the same DATA_DIR; or a copy of the same corpora seeded by an earlier run of the same code, see
 * corpus-cache.ts), then the local server in a child process, the stubs and the proxy peer.
 * DATA_DIR goes on tmpfs (/dev/shm) when there is one, so the disk's fsyncs do not dominate the store's figures;
 * BENCH_DATA_DIR chooses another parent directory (bench/README.md).
 */
export async function startBenchEnv({
  quick,
  sizes,
  reseed = false,
  reuse = false,
}: {
  quick: boolean;
  sizes: number[];
  /** Seed even when a corpus of the same code is cached. */
  reseed?: boolean;
  /** Restore the latest cached corpora of these sizes even when other code seeded them (corpus-cache.ts). */
  reuse?: boolean;
}): Promise<BenchEnv> {
  const corpora = [...sizes].sort((a, b) => a - b).map((size) => ({ size, chunks: size, user: corpusUser(size) }));
  const parent = process.env.BENCH_DATA_DIR ?? (existsSync('/dev/shm') ? '/dev/shm' : tmpdir());
  const dataDir = mkdtempSync(join(parent, 'memgate-bench-'));
  const serverEnvOf = (endpoint: string) => ({
    DATA_DIR: dataDir,
    DYNAMODB_ENDPOINT: endpoint,
    TABLE_NAME,
    PORT: '0',
    // The default: one JSON line per request, to the child's stdout, which goes to /dev/null.
    LOG_LEVEL: 'info',
    AUTH_JWT_SECRET: SECRET,
    PROXY_ALLOW_PRIVATE_TARGETS: 'true',
    LOCAL_INDEX_UNLOAD_AFTER_MS: String(UNLOAD_AFTER_MS),
    NODE_NO_WARNINGS: '1',
    ...passedOnOf(process.env),
  });
  const sizesOf = corpora.map((corpus) => corpus.size);
  const ownKey = corpusKey(sizesOf);
  const key = reuse && !reseed ? (latestCorpusKey(sizesOf) ?? ownKey) : ownKey;
  const cached = reseed ? undefined : restoreCorpus<SeedReport>(key, dataDir);
  let dynamo = await startDynamoLocal({ dataDir });
  let documentClient: DynamoDBDocumentClient | undefined;
  try {
    let seed: BenchEnv['seed'];
    if (cached) {
      seed = { ...cached, cached: true, ...(key === ownKey ? {} : { seededBy: key }) };
    } else {
      const fresh = await seedCorpora(serverEnvOf(dynamo.endpoint), corpora);
      // DynamoDB Local stopped (its files complete) and the vector index closed: the DATA_DIR can be copied.
      await dynamo.stop();
      saveCorpus(key, dataDir, fresh);
      dynamo = await startDynamoLocal({ dataDir });
      seed = { ...fresh, cached: false };
    }
    const client = createDocumentClient({ endpoint: dynamo.endpoint });
    documentClient = client;
    const serverEnv = serverEnvOf(dynamo.endpoint);
    const timedStubChunks = 6;
    const timedStubIntervalMs = 10;
    const started = await Promise.allSettled([
      startBenchUpstream(upstreamPlaceOf(process.env)),
      startTimedStreamStub({ chunks: timedStubChunks, intervalMs: timedStubIntervalMs }),
      startPortkey(),
      // A/B of the server process's own settings (bench/README.md): V8 flags, and glibc malloc's variables.
      startServerChild(
        { ...serverEnv, ...mallocSettingsOf(process.env) },
        (process.env.BENCH_SERVER_NODE_FLAGS ?? '').split(' ').filter(Boolean),
      ),
    ] as const);
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) {
      // Stop what did start, so no child process outlives the run.
      await Promise.allSettled(
        started.map((result) => (result.status === 'fulfilled' ? stopOf(result.value)() : undefined)),
      );
      throw failed.reason;
    }
    const [stub, timedStub, portkey, server] = started.map(
      (result) => (result as PromiseFulfilledResult<unknown>).value,
    ) as [BenchUpstream, TimedStreamStub, PortkeyGateway, ServerChild];
    const rss = new RssLog(server);
    // Let start-up allocations settle before the idle reading.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await rss.record('idle after start (no request served yet)');
    const database = dynamo;
    return {
      quick,
      server,
      dataDir,
      dynamo: database,
      documentClient: client,
      corpora,
      seed,
      rss,
      stub,
      timedStub,
      timedStubChunks,
      timedStubIntervalMs,
      portkey,
      token: (user) => signLocalToken(SECRET, { user }),
      proxyUrl: (upstreamBase) =>
        `${server.url}/api/v1/proxy/${encodeURIComponent(upstreamBase)}/bench-target-key/chat/completions`,
      async close() {
        await Promise.allSettled([server.stop(), stub.close(), timedStub.close(), portkey.stop()]);
        client.destroy();
        await database.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    documentClient?.destroy();
    await dynamo.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}
