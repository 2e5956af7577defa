import { chunkTerms, neighbourOffsets, speakerTermIdsOf, type VectorItem } from '@memgate/core';

/**
 * A batch of the bench corpus's paragraphs as the add path hands them to a vector index: the chunk's terms, its chain
 * of neighbours in the same batch (lent terms; `chains` false writes them without, as before chains) and the
 * metadata of one user's documents of 10 chunks each, every tenth chunk external. `offset` is the first text's index.
 */
export function corpusItems(texts: string[], vectors: Float32Array[], offset: number, chains = true): VectorItem[] {
  const terms = chunkTerms(texts);
  const offsets = neighbourOffsets(texts.length);
  return vectors.map((values, i) => ({
    id: `chunk-${offset + i}`,
    values,
    ...terms[i],
    ...(chains
      ? {
          chain: {
            neighbours: offsets[i]?.offsets.map((at) => `chunk-${offset + i + at}`) ?? [],
            weights: offsets[i]?.weights ?? [],
            unlent: speakerTermIdsOf(texts[i] as string),
          },
        }
      : {}),
    metadata: {
      documentId: `doc-${Math.floor((offset + i) / 10)}`,
      userId: 'user-1',
      scopes: [(offset + i) % 10 === 0 ? 'external' : 'internal'],
      source: 'bench',
      fileName: 'bench.txt',
      docType: 'txt',
      contextType: 'resource',
      tags: [],
    },
  }));
}
