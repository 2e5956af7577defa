import type { PineconeConfiguration } from '@pinecone-database/pinecone/dist/data/index.js';
import { createRetryingFetch, type RetryOptions } from '../http-retry/index.ts';

/**
 * How both Pinecone adapters configure the official client's classes (`Index`, `Inference`). maxRetries 0: the
 * client's own retry knows only 5xx; ours (createRetryingFetch) also covers 429, Retry-After and deadlines.
 */
export function sdkConfiguration({
  apiKey,
  retry,
  controllerHostUrl,
}: {
  apiKey: string;
  retry?: RetryOptions | undefined;
  controllerHostUrl?: string | undefined;
}): PineconeConfiguration {
  return {
    apiKey,
    maxRetries: 0,
    fetchApi: createRetryingFetch(retry),
    ...(controllerHostUrl ? { controllerHostUrl } : {}),
  };
}
