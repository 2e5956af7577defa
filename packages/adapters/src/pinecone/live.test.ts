import { describe } from 'vitest';
import { vectorIndexConformance } from '../../../../test/conformance/vector-index.ts';
import { createPineconeVectorIndex } from './index.ts';

const apiKey = process.env.PINECONE_API_KEY;
const indexName = process.env.PINECONE_INDEX;

// Live Pinecone is unreachable in CI; with credentials (and a cosine index of PINECONE_DIMENSION, default 1024) the
// same contract runs against the real service. Reads are eventually consistent there, so expectations are polled.
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
});
