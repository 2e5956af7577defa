import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { Clock, VectorIndex } from '@memgate/core';
import type { Config } from '../config/index.ts';
import { createChatServices } from './chat.ts';
import { createContextServices } from './context.ts';
import { createEmbedder } from './embedder.ts';
import { createProxyServices } from './proxy.ts';

/** What a composition root (local server, a Lambda) hands over; everything else is built from it. */
export interface ServiceInputs {
  config: Config;
  documentClient: DynamoDBDocumentClient;
  tableName: string;
  /** Local: the embedded index; AWS: Pinecone. Chosen by the root so local-only code never enters a Lambda. */
  vectorIndex: VectorIndex;
  clock: Clock;
  log: (level: 'info' | 'warn' | 'error', message: string, fields?: Record<string, unknown>) => void;
}

/**
 * Builds the services behind every area from configuration. The result is shaped to be spread into
 * `createApp` (packages/http) next to the verifier and logger.
 */
export function createServices(inputs: ServiceInputs) {
  const embedder = createEmbedder(inputs.config);
  const context = createContextServices(inputs, { embedder });
  const proxy = createProxyServices(inputs, { embedder, contextStore: context.store });
  const chat = createChatServices(inputs, { contextStore: context.store, defaultModel: proxy.defaultModel });
  return { context, proxy, chat };
}

export type Services = ReturnType<typeof createServices>;
