import { describe } from 'vitest';
import { hybridIndexConformance } from '../../../../test/conformance/hybrid-index.ts';
import { vectorIndexConformance } from '../../../../test/conformance/vector-index.ts';
import { createPineconeVectorIndex } from './index.ts';

const apiKey = process.env.PINECONE_API_KEY;
const indexName = process.env.PINECONE_INDEX;

// Live Pinecone is unreachable in CI; with credentials (and a dotproduct index of PINECONE_DIMENSION, default 1024,
// as hybrid search needs) the same contracts run against the real service. Reads are eventually consistent there, so expectations are polled.
describe.skipIf(!apiKey || !indexName)('Pinecone vector index (live)', () => {
  vectorIndexConformance(
    'Pinecone (live)',
    () =>
      createPineconeVectorIndex({
        apiKey: apiKey as string,
        indexName: indexName as string,
        ...(process.env.PINECONE_HOST ? { host: process.env.PINECONE_HOST } : {}),
      }),
    { dimension: Number(process.env.PINECONE_DIMENSION ?? 1024), eventual: true },
  );
  hybridIndexConformance(
    'Pinecone (live)',
    () =>
      createPineconeVectorIndex({
        apiKey: apiKey as string,
        indexName: indexName as string,
        ...(process.env.PINECONE_HOST ? { host: process.env.PINECONE_HOST } : {}),
      }),
    { dimension: Number(process.env.PINECONE_DIMENSION ?? 1024), eventual: true },
  );
});
