import type { Page, TenantKey, VectorIndex, VectorMatch } from '@memgate/core';
import { MemgateError } from '@memgate/core';
import type { Index } from '@pinecone-database/pinecone/dist/data/index.js';
import type { RetryOptions } from '../http-retry/index.ts';
import {
  clampScore,
  fromPineconeMetadata,
  MAX_BATCH_VECTORS,
  toPineconeFilter,
  toPineconeRecord,
  upsertBatches,
} from './records.ts';
import { sdkConfiguration } from './sdk.ts';
import { querySparseValues, scaledUnit } from './sparse.ts';

export interface PineconeVectorIndexOptions {
  apiKey: string;
  indexName: string;
  /** Data-plane host of the index; without it the client resolves it once through the control plane. */
  host?: string;
  /** Control-plane base URL, for the host lookup (tests point it at a stand-in). */
  controllerHostUrl?: string;
  /** 429/5xx retry policy of the client, and the transport under it (`retry.fetch`, global fetch by default). */
  retry?: RetryOptions;
  /** Upsert requests in flight at once for one call. */
  concurrency?: number;
}

// Pinecone's ceilings for one query and one list page.
const MAX_TOP_K = 10_000;
const MAX_LIST_PAGE = 100;
const TENANT_NAMESPACE = /^(user|org):/;

/**
 * VectorIndex on Pinecone, hybrid through Pinecone's sparse-dense records (index metric: dotproduct): dense values
 * as unit vectors, terms as sparse values with BM25+ saturation on the document side and each term's share of the
 * query on the query side, both scaled so the dot product is (1 − w) · cosine + w · lexical (sparse.ts). Without
 * terms (HYBRID_LEXICAL_WEIGHT=0) only dense values are sent, which a cosine index also accepts. One namespace per tenant; upserts split into requests of at most
 * 1,000 vectors and 2 MB; 429 and 5xx retried with exponential backoff and jitter; failures surface as a
 * MemgateError of kind `upstream_unavailable` whose message names the operation, never the key.
 */
export function createPineconeVectorIndex({
  apiKey,
  indexName,
  host,
  controllerHostUrl,
  retry,
  concurrency = 4,
}: PineconeVectorIndexOptions): VectorIndex {
  let connecting: Promise<Index> | undefined;
  /**
   * The SDK's own Index class (what `new Pinecone(...).index(...)` returns), from its module rather than the package
   * root, whose CommonJS barrel would bring the whole SDK (control plane, assistants, admin) into every Lambda bundle;
   * and on first use, so a cold start whose first request never touches vectors does not initialise the SDK.
   */
  const connect = () =>
    (connecting ??= import('@pinecone-database/pinecone/dist/data/index.js').then(
      ({ Index }) =>
        new Index(
          host === undefined ? { name: indexName } : { name: indexName, host },
          sdkConfiguration({ apiKey, retry, controllerHostUrl }),
        ),
    ));

  async function call<T>(operation: string, run: () => Promise<T>, ifMissing?: { value: T }): Promise<T> {
    try {
      return await run();
    } catch (error) {
      // Serverless answers 404 for a namespace that was never written: nothing to read or delete there.
      if (ifMissing && (error as Error)?.name === 'PineconeNotFoundError') return ifMissing.value;
      if (error instanceof MemgateError) throw error;
      throw new MemgateError('upstream_unavailable', 'vector_store_unavailable', `Pinecone ${operation} failed`, {
        cause: error,
      });
    }
  }

  return {
    prepare() {
      // The chunk is read, compiled and evaluated while the caller waits on other I/O; a failure is the next call's.
      connect().catch(() => {});
    },
    async upsert(namespace, items) {
      const latest = new Map(items.map((item) => [item.id, item])); // last one wins, as one request would do
      const batches = [...upsertBatches([...latest.values()].map(toPineconeRecord))];
      const target = (await connect()).namespace(namespace);
      let next = 0;
      const worker = async () => {
        while (next < batches.length) {
          const records = batches[next++] as ReturnType<typeof toPineconeRecord>[];
          await call('upsert', () => target.upsert({ records }));
        }
      };
      await Promise.all(Array.from({ length: Math.min(concurrency, batches.length) }, worker));
    },

    async query(namespace, { vector, topK, filter, terms, lexicalWeight = 0 }): Promise<VectorMatch[]> {
      const k = Math.min(Math.floor(topK), MAX_TOP_K);
      if (k <= 0) return [];
      if (!(lexicalWeight >= 0 && lexicalWeight <= 1)) {
        throw new Error(`lexicalWeight must be from 0 to 1, got ${lexicalWeight}`);
      }
      const sparseVector = terms ? querySparseValues(terms, lexicalWeight) : undefined;
      const dense = scaledUnit(vector, sparseVector ? 1 - lexicalWeight : 1);
      const pineconeFilter = toPineconeFilter(filter);
      const index = await connect();
      const response = await call(
        'query',
        () =>
          index.namespace(namespace).query({
            vector: dense,
            ...(sparseVector ? { sparseVector } : {}),
            topK: k,
            includeMetadata: true,
            includeValues: false,
            ...(pineconeFilter ? { filter: pineconeFilter } : {}),
          }),
        { value: { matches: [], namespace } },
      );
      return (response.matches ?? []).map((match) => ({
        id: match.id,
        score: clampScore(match.score),
        metadata: fromPineconeMetadata(match.metadata as Record<string, unknown> | undefined),
      }));
    },

    async delete(namespace, ids) {
      const target = (await connect()).namespace(namespace);
      for (let start = 0; start < ids.length; start += MAX_BATCH_VECTORS) {
        const batch = ids.slice(start, start + MAX_BATCH_VECTORS);
        await call('delete', () => target.deleteMany({ ids: batch }), { value: undefined });
      }
    },

    async listIds(namespace, { cursor, limit }): Promise<Page<string>> {
      const index = await connect();
      const response = await call(
        'list',
        () =>
          index.namespace(namespace).listPaginated({
            limit: Math.max(1, Math.min(limit, MAX_LIST_PAGE)),
            ...(cursor === undefined ? {} : { paginationToken: cursor }),
          }),
        { value: { vectors: [], namespace } },
      );
      const items = (response.vectors ?? []).flatMap((vector) => (vector.id === undefined ? [] : [vector.id]));
      return { items, nextCursor: response.pagination?.next ?? null };
    },

    async listNamespaces() {
      const index = await connect();
      const stats = await call('describe_index_stats', () => index.describeIndexStats());
      return Object.entries(stats.namespaces ?? {})
        .filter(([name, summary]) => TENANT_NAMESPACE.test(name) && (summary?.recordCount ?? 0) > 0)
        .map(([name]) => name as TenantKey)
        .sort();
    },
  };
}
