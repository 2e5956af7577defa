import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { matchesPineconeFilter } from './filter.ts';

/** One request as the emulator received it. */
export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  apiKey: string | undefined;
  apiVersion: string | undefined;
  bodyBytes: number;
  body: Record<string, unknown> | undefined;
}

interface SparseVector {
  indices: number[];
  values: number[];
}

interface StoredVector {
  values: number[];
  sparseValues?: SparseVector;
  metadata: Record<string, unknown>;
}

type UpsertedVector = { id: string; values: number[]; sparseValues?: SparseVector; metadata?: Record<string, unknown> };

export interface PineconeEmulator {
  /** Base URL, to pass as the index host or the client's controllerHostUrl. */
  url: string;
  requests: RecordedRequest[];
  /** The next `times` requests get `status` (e.g. 429 with `retry-after`) instead of being served. */
  failNext(status: number, times: number, headers?: Record<string, string>): void;
  close(): Promise<void>;
}

const MAX_REQUEST_BYTES = 2 * 1024 * 1024;
const MAX_METADATA_BYTES = 40 * 1024;
const MAX_SPARSE_VALUES = 1000;

/**
 * A local HTTP server speaking Pinecone's documented data-plane API (upsert, query, delete, list,
 * describe_index_stats) and the inference `embed` endpoint, with the service's own limits (1,000 vectors and
 * 2 MB per upsert, 40 KB of metadata) and error shapes. It records every request, so tests can assert what the
 * real client sends and run it against real response shapes. `embed` supplies vectors for `/embed`.
 * `metric` is the index's: with `dotproduct` (the default, what hybrid search needs) records may carry sparse
 * values and a query a sparse vector, and a match's score is the dense dot product plus the sparse one, as
 * Pinecone documents for sparse-dense vectors; with `cosine`, sparse values are refused, as Pinecone does.
 */
export async function startPineconeEmulator(options: {
  apiKey: string;
  metric?: 'cosine' | 'dotproduct';
  embed?: (texts: string[], inputType: string | undefined) => number[][] | Promise<number[][]>;
}): Promise<PineconeEmulator> {
  const metric = options.metric ?? 'dotproduct';
  const namespaces = new Map<string, Map<string, StoredVector>>();
  const requests: RecordedRequest[] = [];
  const failures: { status: number; headers: Record<string, string> }[] = [];

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://emulator');
    const raw = await readBody(req);
    const body = raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as Record<string, unknown>) : undefined;
    requests.push({
      method: req.method ?? '',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      apiKey: header(req, 'api-key'),
      apiVersion: header(req, 'x-pinecone-api-version'),
      bodyBytes: raw.length,
      body,
    });
    const failure = failures.shift();
    if (failure)
      return reply(
        res,
        failure.status,
        { error: { code: 'RESOURCE_EXHAUSTED', message: 'Too many requests' } },
        failure.headers,
      );
    if (header(req, 'api-key') !== options.apiKey) {
      return reply(res, 401, { error: { code: 'UNAUTHENTICATED', message: 'Invalid API Key' }, status: 401 });
    }
    if (raw.length > MAX_REQUEST_BYTES) return badRequest(res, `Request size ${raw.length} exceeds the 2MB limit`);
    const route = `${req.method} ${url.pathname}`;
    const ns = typeof body?.namespace === 'string' ? body.namespace : (url.searchParams.get('namespace') ?? '');
    switch (route) {
      case 'POST /vectors/upsert':
        return upsert(res, ns, body?.vectors as UpsertedVector[]);
      case 'POST /query':
        return query(res, ns, body ?? {});
      case 'POST /vectors/delete': {
        const stored = namespaces.get(ns);
        if (!stored) return reply(res, 404, { code: 5, message: 'Namespace not found', details: [] });
        for (const id of (body?.ids as string[] | undefined) ?? []) stored.delete(id);
        return reply(res, 200, {});
      }
      case 'GET /vectors/list':
        return list(res, ns, url.searchParams);
      case 'POST /describe_index_stats': {
        const summaries = Object.fromEntries(
          [...namespaces].map(([name, stored]) => [name, { vectorCount: stored.size }]),
        );
        const total = [...namespaces.values()].reduce((sum, stored) => sum + stored.size, 0);
        return reply(res, 200, {
          namespaces: summaries,
          dimension: 0,
          indexFullness: 0,
          totalVectorCount: total,
          metric,
          vectorType: 'dense',
        });
      }
      case 'POST /embed': {
        const inputs = ((body?.inputs ?? []) as { text: string }[]).map((input) => input.text);
        const parameters = body?.parameters as { input_type?: string } | undefined;
        const vectors = (await options.embed?.(inputs, parameters?.input_type)) ?? [];
        return reply(res, 200, {
          model: body?.model,
          vector_type: 'dense',
          data: vectors.map((values) => ({ values, vector_type: 'dense' })),
          usage: { total_tokens: inputs.join(' ').split(/\s+/).length },
        });
      }
      default:
        return reply(res, 404, { error: { code: 'NOT_FOUND', message: `no route ${route}` } });
    }
  });

  /** Why Pinecone would refuse these sparse values, or undefined. */
  function sparseProblem(sparse: SparseVector | undefined): string | undefined {
    if (sparse === undefined) return undefined;
    if (metric !== 'dotproduct') return 'Sparse vectors are only supported for indexes using the dotproduct metric';
    const { indices, values } = sparse;
    if (!Array.isArray(indices) || !Array.isArray(values) || indices.length !== values.length) {
      return 'Sparse vector indices and values must have the same length';
    }
    if (indices.length === 0) return 'Sparse vector must contain at least one value';
    if (indices.length > MAX_SPARSE_VALUES) return `Sparse vector exceeds ${MAX_SPARSE_VALUES} non-zero values`;
    if (new Set(indices).size !== indices.length) return 'Sparse vector indices must be unique';
    if (indices.some((index) => !Number.isInteger(index) || index < 0 || index > 0xffffffff)) {
      return 'Sparse vector indices must be uint32';
    }
    return undefined;
  }

  function upsert(res: ServerResponse, ns: string, vectors: UpsertedVector[]) {
    if (!Array.isArray(vectors) || vectors.length === 0 || vectors.length > 1000) {
      return badRequest(res, 'vectors must hold between 1 and 1000 records');
    }
    for (const vector of vectors) {
      const problem = sparseProblem(vector.sparseValues);
      if (problem) return badRequest(res, problem);
      if (Buffer.byteLength(JSON.stringify(vector.metadata ?? {})) > MAX_METADATA_BYTES) {
        return badRequest(res, `Metadata size exceeds the limit of ${MAX_METADATA_BYTES} bytes per vector`);
      }
    }
    const stored = namespaces.get(ns) ?? new Map<string, StoredVector>();
    namespaces.set(ns, stored);
    for (const vector of vectors) {
      const record: StoredVector = { values: vector.values, metadata: vector.metadata ?? {} };
      if (vector.sparseValues) record.sparseValues = vector.sparseValues;
      stored.set(vector.id, record);
    }
    return reply(res, 200, { upsertedCount: vectors.length });
  }

  function query(res: ServerResponse, ns: string, body: Record<string, unknown>) {
    const vector = body.vector as number[];
    const sparse = body.sparseVector as SparseVector | undefined;
    const problem = sparseProblem(sparse);
    if (problem) return badRequest(res, problem);
    const score = (record: StoredVector) =>
      metric === 'cosine'
        ? cosine(vector, record.values)
        : dot(vector, record.values) + sparseDot(sparse, record.sparseValues);
    const stored = namespaces.get(ns) ?? new Map<string, StoredVector>();
    const filter = body.filter as Record<string, unknown> | undefined;
    const matches = [...stored]
      .filter(([, record]) => matchesPineconeFilter(record.metadata, filter))
      .map(([id, record]) => ({
        id,
        score: score(record),
        values: body.includeValues ? record.values : [],
        ...(body.includeMetadata ? { metadata: record.metadata } : {}),
      }))
      .sort((a, b) => b.score - a.score)
      .slice(0, Number(body.topK));
    return reply(res, 200, { results: [], matches, namespace: ns, usage: { readUnits: 5 } });
  }

  function list(res: ServerResponse, ns: string, params: URLSearchParams) {
    const limit = Number(params.get('limit') ?? 100);
    const after = params.get('paginationToken');
    const ids = [...(namespaces.get(ns)?.keys() ?? [])]
      .filter((id) => id.startsWith(params.get('prefix') ?? ''))
      .sort()
      .filter((id) => after === null || id > Buffer.from(after, 'base64url').toString('utf8'));
    const page = ids.slice(0, limit);
    const last = page.at(-1);
    const next = ids.length > limit && last !== undefined ? Buffer.from(last).toString('base64url') : undefined;
    return reply(res, 200, {
      vectors: page.map((id) => ({ id })),
      ...(next ? { pagination: { next } } : {}),
      namespace: ns,
      usage: { readUnits: 1 },
    });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    failNext(status, times, headers = {}) {
      for (let i = 0; i < times; i++) failures.push({ status, headers });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += (a[i] ?? 0) * (b[i] ?? 0);
    na += (a[i] ?? 0) ** 2;
    nb += (b[i] ?? 0) ** 2;
  }
  return na > 0 && nb > 0 ? dot / Math.sqrt(na * nb) : 0;
}

function dot(a: number[], b: number[]): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] ?? 0) * (b[i] ?? 0);
  return sum;
}

function sparseDot(query: SparseVector | undefined, record: SparseVector | undefined): number {
  if (!query || !record) return 0;
  const weights = new Map(record.indices.map((index, i) => [index, record.values[i] ?? 0]));
  return query.indices.reduce((sum, index, i) => sum + (query.values[i] ?? 0) * (weights.get(index) ?? 0), 0);
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function badRequest(res: ServerResponse, message: string): void {
  reply(res, 400, { error: { code: 'INVALID_ARGUMENT', message }, status: 400 });
}

function reply(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
