import type { Embedder } from '@memgate/core';
import type { Config } from '../config/index.ts';
import { createLexicalEmbedder } from '../embedders/lexical/index.ts';

/** The configured Embedder (EMBEDDINGS=local|openai|pinecone). */
export function createEmbedder(config: Config): Embedder {
  switch (config.EMBEDDINGS) {
    case 'local':
      return createLexicalEmbedder({ dimension: 512 });
    default:
      throw new Error(`EMBEDDINGS=${config.EMBEDDINGS}: not built yet`);
  }
}
