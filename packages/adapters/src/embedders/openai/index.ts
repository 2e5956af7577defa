import type { Embedder } from '@memgate/core';
import { MemgateError } from '@memgate/core';
import { createRetryingFetch, type FetchLike, type RetryOptions } from '../../http-retry/index.ts';
import { splitBaseUrl } from '../../upstream/endpoint.ts';
import { inBatches } from '../batches.ts';
import { normalizeInPlace } from '../normalize.ts';

export interface OpenAIEmbedderOptions {
  /** Base URL of an OpenAI-compatible API, e.g. https://api.openai.com/v1 (`/embeddings` is appended). */
  baseUrl: string;
  apiKey?: string;
  model: string;
  /** Required for models this adapter does not know; for text-embedding-3 models it is also requested upstream. */
  dimension?: number;
  retry?: RetryOptions;
  fetch?: FetchLike;
  timeoutMs?: number;
}

/** OpenAI's limit on inputs per request. */
const MAX_INPUTS = 2048;
/**
 * OpenAI also caps the tokens of one request (300k); 200k characters stays under it even for scripts that spend
 * about a token per character.
 */
const MAX_REQUEST_CHARS = 200_000;
const KNOWN_DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

interface EmbeddingsResponse {
  data?: { index: number; embedding: number[] | string }[];
}

/**
 * Embedder for any OpenAI-compatible `/embeddings` endpoint: requests of at most 2,048 inputs, results ordered by
 * `index`, vectors L2-normalised, 429/5xx retried. Errors are MemgateErrors that never contain the key.
 */
export function createOpenAIEmbedder({
  baseUrl,
  apiKey,
  model,
  dimension,
  retry,
  fetch = globalThis.fetch,
  timeoutMs = 60_000,
}: OpenAIEmbedderOptions): Embedder {
  const size = dimension ?? KNOWN_DIMENSIONS[model];
  if (size === undefined) {
    throw new Error(`embeddings model '${model}' has no known dimension: set EMBEDDINGS_DIMENSION`);
  }
  // Only text-embedding-3 models accept `dimensions`; other compatible servers may reject the field.
  const requestDimensions = dimension !== undefined && model.startsWith('text-embedding-3');
  const { base, query } = splitBaseUrl(baseUrl);
  const endpoint = `${base}/embeddings${query}`;
  const send = createRetryingFetch({ ...retry, fetch });

  async function embedBatch(texts: string[]): Promise<Float32Array[]> {
    let response: Response;
    try {
      response = await send(endpoint, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
        },
        body: JSON.stringify({
          model,
          input: texts,
          encoding_format: 'float',
          ...(requestDimensions ? { dimensions: dimension } : {}),
        }),
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw failure(`embeddings endpoint unreachable (${(error as Error).name})`, error);
    }
    if (!response.ok) {
      throw failure(`embeddings request failed: HTTP ${response.status}${await upstreamMessage(response, apiKey)}`);
    }
    const body = (await response.json().catch(() => ({}))) as EmbeddingsResponse;
    const data = Array.isArray(body.data) ? [...body.data].sort((a, b) => a.index - b.index) : [];
    if (data.length !== texts.length) {
      throw failure(`embeddings response has ${data.length} vectors for ${texts.length} inputs`);
    }
    return data.map(({ embedding }) => {
      const vector = typeof embedding === 'string' ? decodeBase64Floats(embedding) : Float32Array.from(embedding);
      if (vector.length !== size)
        throw failure(`embeddings model returned dimension ${vector.length}, expected ${size}`);
      return normalizeInPlace(vector);
    });
  }

  return {
    id: `openai:${model}:${size}`,
    dimension: size,
    async embed(texts) {
      return inBatches(texts, { size: MAX_INPUTS, maxChars: MAX_REQUEST_CHARS }, embedBatch);
    },
  };
}

function failure(message: string, cause?: unknown): MemgateError {
  return new MemgateError(
    'upstream_unavailable',
    'embeddings_unavailable',
    message,
    cause === undefined ? {} : { cause },
  );
}

/** The upstream's own error message, shortened, with the key (and anything shaped like one) removed. */
async function upstreamMessage(response: Response, apiKey: string | undefined): Promise<string> {
  const text = await response.text().catch(() => '');
  let message = text;
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } | string };
    message = typeof parsed.error === 'string' ? parsed.error : String(parsed.error?.message ?? '');
  } catch {
    // not JSON: keep the text
  }
  if (apiKey) message = message.split(apiKey).join('[redacted]');
  message = message
    .replace(/\b(sk|pk|pcsk)[-_][A-Za-z0-9_*-]{4,}/g, '[redacted]')
    .slice(0, 200)
    .trim();
  return message ? `: ${message}` : '';
}

function decodeBase64Floats(encoded: string): Float32Array {
  const bytes = Buffer.from(encoded, 'base64');
  const vector = new Float32Array(bytes.length / 4);
  for (let i = 0; i < vector.length; i++) vector[i] = bytes.readFloatLE(i * 4);
  return vector;
}
