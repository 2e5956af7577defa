import type { Embedder } from '@memgate/core';
import type { Config } from '../config/index.ts';
import { createLexicalEmbedder } from '../embedders/lexical/index.ts';
import { createOpenAIEmbedder } from '../embedders/openai/index.ts';
import { createPineconeInferenceEmbedder } from '../embedders/pinecone/index.ts';

const DEFAULT_MODELS = { openai: 'text-embedding-3-small', pinecone: 'multilingual-e5-large' } as const;

/** The configured Embedder (EMBEDDINGS=local|openai|pinecone). */
export function createEmbedder(config: Config): Embedder {
  switch (config.EMBEDDINGS) {
    case 'local':
      return createLexicalEmbedder({ dimension: config.EMBEDDINGS_DIMENSION ?? 512 });
    case 'openai':
      if (!config.EMBEDDINGS_BASE_URL) throw new Error('EMBEDDINGS=openai needs EMBEDDINGS_BASE_URL');
      return createOpenAIEmbedder({
        baseUrl: config.EMBEDDINGS_BASE_URL,
        model: config.EMBEDDINGS_MODEL ?? DEFAULT_MODELS.openai,
        ...(config.EMBEDDINGS_API_KEY ? { apiKey: config.EMBEDDINGS_API_KEY } : {}),
        ...(config.EMBEDDINGS_DIMENSION ? { dimension: config.EMBEDDINGS_DIMENSION } : {}),
      });
    case 'pinecone':
      if (!config.PINECONE_API_KEY) throw new Error('EMBEDDINGS=pinecone needs PINECONE_API_KEY');
      return createPineconeInferenceEmbedder({
        apiKey: config.PINECONE_API_KEY,
        model: config.EMBEDDINGS_MODEL ?? DEFAULT_MODELS.pinecone,
        ...(config.EMBEDDINGS_DIMENSION ? { dimension: config.EMBEDDINGS_DIMENSION } : {}),
      });
  }
}
