import type { FetchLike } from '@memgate/adapters/http-retry/index';

/**
 * The part of `@pinecone-database/pinecone` memgate uses, over Pinecone's REST API: the data plane of one index
 * (upsert, query, delete, list, describe_index_stats) and the inference `embed` endpoint. The Lambda build puts it in
 * place of the SDK (scripts/build.ts), whose CommonJS build (~560 KB, every control-plane, assistant and admin
 * client) would be half of a function's 1 MB budget. The adapters keep their code: they call the same methods,
 * get the same response shapes and the same `PineconeNotFoundError` name for a 404. Requests go through the
 * `fetchApi` the adapters pass (their 429/5xx retry policy).
 */

/** The REST API version this client speaks (the SDK version it replaces sends the same). */
export const PINECONE_API_VERSION = '2026-04';
const CONTROL_PLANE = 'https://api.pinecone.io';

export interface PineconeConfiguration {
  apiKey: string;
  /** Accepted for compatibility; retries are the `fetchApi`'s job. */
  maxRetries?: number;
  fetchApi?: FetchLike;
  controllerHostUrl?: string;
}

interface PineconeRecord {
  id: string;
  values: number[];
  metadata?: Record<string, unknown>;
}

/** A non-2xx answer, named like the SDK's errors (the adapters tell a missing namespace by the name). */
export class PineconeRequestError extends Error {
  constructor(
    readonly status: number,
    operation: string,
  ) {
    super(`Pinecone ${operation} answered HTTP ${status}`);
    this.name =
      status === 404 ? 'PineconeNotFoundError' : status === 401 ? 'PineconeAuthorizationError' : 'PineconeError';
  }
}

function withScheme(host: string): string {
  return (/^https?:\/\//.test(host) ? host : `https://${host}`).replace(/\/+$/, '');
}

export class Pinecone {
  readonly inference: {
    embed(options: { model: string; inputs: string[]; parameters?: Record<string, unknown> }): Promise<{
      data: { values: number[]; vectorType: string }[];
    }>;
  };
  readonly #request: (url: string, operation: string, init?: { method?: string; body?: unknown }) => Promise<unknown>;
  readonly #control: string;

  constructor({ apiKey, fetchApi = fetch, controllerHostUrl = CONTROL_PLANE }: PineconeConfiguration) {
    this.#request = async (url, operation, { method = 'GET', body } = {}) => {
      const response = await fetchApi(url, {
        method,
        headers: {
          'Api-Key': apiKey,
          'X-Pinecone-Api-Version': PINECONE_API_VERSION,
          ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      // Drain the body either way, so the connection goes back to the pool.
      const text = await response.text();
      if (!response.ok) throw new PineconeRequestError(response.status, operation);
      return text === '' ? {} : JSON.parse(text);
    };
    const control = controllerHostUrl.replace(/\/+$/, '');
    this.#control = control;
    const request = this.#request;
    this.inference = {
      async embed({ model, inputs, parameters = {} }) {
        // Like the SDK: `inputType` is the client's spelling of the API's `input_type`.
        const { inputType, ...rest } = parameters;
        const sent = inputType === undefined ? rest : { ...rest, input_type: inputType };
        const answer = (await request(`${control}/embed`, 'embed', {
          method: 'POST',
          body: { model, inputs: inputs.map((text) => ({ text })), parameters: sent },
        })) as { data?: { values?: number[]; vector_type?: string }[] };
        return {
          data: (answer.data ?? []).map((item) => ({ values: item.values ?? [], vectorType: item.vector_type ?? '' })),
        };
      },
    };
  }

  /** One index's data plane; without `host` its host is looked up once through the control plane. */
  index({ name, host }: { name: string; host?: string }) {
    const request = this.#request;
    let base: Promise<string> | undefined = host === undefined ? undefined : Promise.resolve(withScheme(host));
    const hostOf = () => {
      base ??= (
        request(`${this.#control}/indexes/${encodeURIComponent(name)}`, 'describe_index') as Promise<{ host: string }>
      ).then((description) => withScheme(description.host));
      // A failed lookup is retried by the next call instead of being remembered.
      base.catch(() => {
        base = undefined;
      });
      return base;
    };
    const post = async (path: string, operation: string, body: unknown) =>
      request(`${await hostOf()}${path}`, operation, { method: 'POST', body });

    return {
      namespace: (namespace: string) => ({
        async upsert({ records }: { records: PineconeRecord[] }) {
          await post('/vectors/upsert', 'upsert', { vectors: records, namespace });
        },
        async query(options: {
          vector: number[];
          topK: number;
          includeMetadata?: boolean;
          includeValues?: boolean;
          filter?: object;
        }) {
          const answer = (await post('/query', 'query', { ...options, namespace })) as {
            matches?: { id: string; score?: number; metadata?: Record<string, unknown> }[];
            namespace?: string;
          };
          return { matches: answer.matches ?? [], namespace: answer.namespace ?? namespace };
        },
        async deleteMany({ ids }: { ids: string[] }) {
          await post('/vectors/delete', 'delete', { ids, namespace });
        },
        async listPaginated({ limit, paginationToken }: { limit?: number; paginationToken?: string }) {
          const query = new URLSearchParams({ namespace });
          if (limit !== undefined) query.set('limit', String(limit));
          if (paginationToken !== undefined) query.set('paginationToken', paginationToken);
          return (await request(`${await hostOf()}/vectors/list?${query}`, 'list')) as {
            vectors?: { id?: string }[];
            pagination?: { next?: string };
            namespace?: string;
          };
        },
      }),
      async describeIndexStats() {
        const answer = (await post('/describe_index_stats', 'describe_index_stats', {})) as {
          namespaces?: Record<string, { vectorCount?: number }>;
        };
        const namespaces = Object.fromEntries(
          Object.entries(answer.namespaces ?? {}).map(([ns, summary]) => [
            ns,
            { recordCount: summary.vectorCount ?? 0 },
          ]),
        );
        return { namespaces };
      },
    };
  }
}
