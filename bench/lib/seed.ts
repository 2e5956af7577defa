import { createDocumentClient, createServices, ensureTable, loadConfig } from '@memgate/adapters';
import { type Principal, SCOPES, systemClock } from '@memgate/core';
import { createLocalVectorIndex, denseGraphFor } from '@memgate/local/vector-index/index';
import { addBody } from './corpus.ts';

/** One tenant's corpus: `chunks` chunks owned by `user` (their own tenant, `user:<user>`). */
export interface CorpusSpec {
  user: string;
  chunks: number;
}

export interface SeedReport {
  chunks: number;
  seconds: number;
  chunksPerSecond: number;
}

/** Paragraphs per document and documents per add call: 100 × 10 = 1,000 chunks per call (at most 100 documents). */
const DOCUMENTS_PER_CALL = 100;
const CHUNKS_PER_DOCUMENT = 10;
const CONCURRENT_CALLS = 4;

/**
 * Seeds corpora before the server starts, in this process, through the product's own context store (the same
 * `createServices` the local server builds: DynamoDB repository, embedded vector index under DATA_DIR, lexical
 * embedder). Each add is the real add (records, vectors, state transitions), only without HTTP in front, so the
 * corpus the server later searches is exactly what adds over HTTP would have left. The server must not be running:
 * the vector index under DATA_DIR has one writer at a time.
 */
export async function seedCorpora(env: Record<string, string>, corpora: readonly CorpusSpec[]): Promise<SeedReport> {
  const config = loadConfig(env);
  if (!config.DYNAMODB_ENDPOINT) throw new Error('seeding needs DYNAMODB_ENDPOINT');
  // Seeding is bulk loading, not a request: on a shared 2-core machine one 25-item BatchWrite has taken over 25 s (the
  // product's deadline per call), which failed a 12-minute seeding near its end. Adds are idempotent; only time is lost.
  const documentClient = createDocumentClient({
    endpoint: config.DYNAMODB_ENDPOINT,
    attemptTimeoutMs: 120_000,
    totalTimeoutMs: 300_000,
  });
  const vectorIndex = await createLocalVectorIndex({
    dir: `${config.DATA_DIR}/vectors`,
    denseGraph: denseGraphFor(config.EMBEDDINGS),
  });
  const started = performance.now();
  let chunks = 0;
  try {
    await ensureTable(documentClient, config.TABLE_NAME);
    const { context } = createServices({
      config,
      documentClient,
      tableName: config.TABLE_NAME,
      vectorIndex,
      clock: systemClock,
      log: () => {},
    });
    for (const corpus of corpora) {
      const principal: Principal = { userId: corpus.user, orgs: [], scopes: new Set<string>(SCOPES) };
      const perCall = DOCUMENTS_PER_CALL * CHUNKS_PER_DOCUMENT;
      const calls = Math.ceil(corpus.chunks / perCall);
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENT_CALLS }, async () => {
          while (next < calls) {
            const call = next++;
            const left = corpus.chunks - call * perCall;
            const documents = Math.min(DOCUMENTS_PER_CALL, Math.ceil(left / CHUNKS_PER_DOCUMENT));
            const body = addBody({
              firstSeed: call * DOCUMENTS_PER_CALL,
              documents,
              chunksPerDocument: CHUNKS_PER_DOCUMENT,
              source: 'corpus',
            });
            const result = await context.store.add(principal, body);
            chunks += result.documents.reduce((sum, document) => sum + document.chunks, 0);
          }
        }),
      );
    }
  } finally {
    await vectorIndex.close();
    documentClient.destroy();
  }
  const wanted = corpora.reduce((sum, corpus) => sum + corpus.chunks, 0);
  // One chunk per ~1 KB paragraph is what makes a corpus's size its chunk count; a chunker change would break it.
  if (chunks < wanted)
    throw new Error(`seeding stored ${chunks} chunks, wanted ${wanted}: the corpus no longer chunks as expected`);
  const seconds = (performance.now() - started) / 1000;
  return { chunks, seconds, chunksPerSecond: chunks / seconds };
}
