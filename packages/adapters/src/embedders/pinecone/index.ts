import type { Embedder } from '@memgate/core';
import { MemgateError } from '@memgate/core';
import type { Inference } from '@pinecone-database/pinecone/dist/inference/index.js';
import type { RetryOptions } from '../../http-retry/index.ts';
import { sdkConfiguration } from '../../pinecone/sdk.ts';
import { inBatches } from '../batches.ts';
import { normalizeInPlace } from '../normalize.ts';

export interface PineconeInferenceEmbedderOptions {
  apiKey: string;
  model: string;
  /** Required for models this adapter does not know; requested upstream where the model supports a choice. */
  dimension?: number;
  /** Control-plane/inference base URL (tests point it at a local emulator). */
  controllerHostUrl?: string;
  /** 429/5xx retry policy, and the transport under it (`retry.fetch`, global fetch by default). */
  retry?: RetryOptions;
}

/** Inputs per request Pinecone's hosted embedding models accept. */
const MAX_INPUTS = 96;
const KNOWN_DIMENSIONS: Record<string, number> = {
  'multilingual-e5-large': 1024,
  'llama-text-embed-v2': 1024,
};
const CHOOSES_DIMENSION = new Set(['llama-text-embed-v2']);

/**
 * Embedder on Pinecone's inference API through the official client: documents as `passage`, queries as `query`
 * (asymmetric models embed the two differently), batches of 96, vectors L2-normalised.
 */
export function createPineconeInferenceEmbedder({
  apiKey,
  model,
  dimension,
  controllerHostUrl,
  retry,
}: PineconeInferenceEmbedderOptions): Embedder {
  const size = dimension ?? KNOWN_DIMENSIONS[model];
  if (size === undefined) {
    throw new Error(`Pinecone embedding model '${model}' has no known dimension: set EMBEDDINGS_DIMENSION`);
  }
  let connecting: Promise<Inference> | undefined;
  // The SDK's Inference class (the client's `inference` member), from its module and on first use: see
  // ../../pinecone/index.ts.
  const connect = () =>
    (connecting ??= import('@pinecone-database/pinecone/dist/inference/index.js').then(
      ({ Inference }) => new Inference(sdkConfiguration({ apiKey, retry, controllerHostUrl })),
    ));

  return {
    id: `pinecone:${model}:${size}`,
    dimension: size,
    async embed(texts, purpose) {
      return inBatches(texts, { size: MAX_INPUTS }, async function embedBatch(batch) {
        const inference = await connect();
        let response: Awaited<ReturnType<Inference['embed']>>;
        try {
          response = await inference.embed({
            model,
            inputs: batch,
            // The client types parameters as strings, but the API wants `dimension` as an integer.
            parameters: {
              inputType: purpose === 'query' ? 'query' : 'passage',
              truncate: 'END',
              ...(dimension !== undefined && CHOOSES_DIMENSION.has(model) ? { dimension } : {}),
            } as unknown as Record<string, string>,
          });
        } catch (error) {
          throw new MemgateError('upstream_unavailable', 'embeddings_unavailable', 'Pinecone inference embed failed', {
            cause: error,
          });
        }
        if (response.data.length !== batch.length) {
          throw new MemgateError(
            'upstream_unavailable',
            'embeddings_unavailable',
            `Pinecone inference returned ${response.data.length} vectors for ${batch.length} inputs`,
          );
        }
        return response.data.map((embedding) => {
          if (embedding.vectorType !== 'dense' || embedding.values.length !== size) {
            throw new MemgateError(
              'upstream_unavailable',
              'embeddings_unavailable',
              `Pinecone model '${model}' did not return dense vectors of dimension ${size}`,
            );
          }
          return normalizeInPlace(Float32Array.from(embedding.values));
        });
      });
    },
  };
}
