import type { Embedder } from '@memgate/core';
import type { Config } from '../config/index.ts';

/** The configured Embedder (EMBEDDINGS=local|openai|pinecone). */
export function createEmbedder(config: Config): Embedder {
  void config;
  throw new Error('embedders: not built yet');
}
