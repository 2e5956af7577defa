import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/index.ts';
import { createEmbedder } from './embedder.ts';

describe('createEmbedder', () => {
  it('defaults to the local lexical embedder', () => {
    expect(createEmbedder(loadConfig({})).id).toBe('lexical-v1:512');
  });

  it('builds the OpenAI-compatible adapter from EMBEDDINGS_* settings', () => {
    const config = loadConfig({
      EMBEDDINGS: 'openai',
      EMBEDDINGS_BASE_URL: 'http://127.0.0.1:1/v1',
      EMBEDDINGS_MODEL: 'nomic-embed-text',
      EMBEDDINGS_DIMENSION: '768',
    });
    expect(createEmbedder(config)).toMatchObject({ id: 'openai:nomic-embed-text:768', dimension: 768 });
  });

  it('builds the Pinecone inference adapter with its default model', () => {
    const config = loadConfig({ EMBEDDINGS: 'pinecone', PINECONE_API_KEY: 'pcsk_x' });
    expect(createEmbedder(config)).toMatchObject({ id: 'pinecone:multilingual-e5-large:1024', dimension: 1024 });
  });
});
