import { createTimeSlice, type Embedder } from '@memgate/core';
import { DEFAULT_WEIGHTS, extractFeatures, FeatureTable, tokenize } from './features.ts';

/**
 * Embedding runs on the event loop; a batch (the chunks of a large add or of a stored exchange, a long history) gives
 * the loop back after this much time, so other requests wait at most about this long (DESIGN.md §4, "Size and time").
 */
const SLICE_MS = 10;

export interface LexicalEmbedderOptions {
  /** Power of two keeps bucket selection a mask; 512 balances hash collisions against index size and speed. */
  dimension?: number;
}

/**
 * Local embedder with no model download: hashed word unigrams, bigrams and character n-grams, signed feature
 * hashing (collisions cancel out on average instead of piling up), sublinear tf, L2-normalised. Deterministic:
 * the same text gives the same vector in every process, so vectors stored yesterday still match today's queries.
 * Documents and queries are embedded alike. A text with no tokens gives the zero vector (similar to nothing).
 */
export function createLexicalEmbedder({ dimension = 512 }: LexicalEmbedderOptions = {}): Embedder {
  if (!Number.isInteger(dimension) || dimension < 16 || (dimension & (dimension - 1)) !== 0) {
    throw new Error(`lexical embedder: dimension must be a power of two >= 16, got ${dimension}`);
  }
  const mask = dimension - 1;
  // One table for every text: embedding is synchronous, so no two texts ever share it at once.
  const table = new FeatureTable();

  function embedTokens(tokens: readonly string[]): Float32Array {
    const vector = new Float32Array(dimension);
    const { keys, counts, weights, size } = extractFeatures(tokens, table, DEFAULT_WEIGHTS);
    for (let i = 0; i < size; i++) {
      const hash = keys[i] as number;
      const count = counts[i] as number;
      // Most features occur once: their 1 + ln(1) is exactly 1, so skipping the log gives the same value.
      const value = count === 1 ? (weights[i] as number) : (weights[i] as number) * (1 + Math.log(count));
      // Low bits choose the bucket, the top bit the sign: independent bits of one well-mixed hash.
      vector[hash & mask] = (vector[hash & mask] as number) + (hash & 0x80000000 ? -value : value);
    }
    let norm = 0;
    for (let i = 0; i < dimension; i++) norm += (vector[i] ?? 0) * (vector[i] ?? 0);
    if (norm > 0) {
      const scale = 1 / Math.sqrt(norm);
      for (let i = 0; i < dimension; i++) vector[i] = (vector[i] ?? 0) * scale;
    }
    return vector;
  }

  /**
   * `shared.words[i]`: texts[i]'s `textWords` (what `tokenize` gives unless a text has no word: then its symbol runs).
   * They are let go at the batch's first yield, and the texts after it tokenised here: across a yield the batch holds
   * its texts only, as `embed` does, so an add's words die young instead of waiting on other requests' work.
   */
  async function embedAll(
    texts: readonly string[],
    shared: { words?: readonly (readonly string[])[] | undefined },
  ): Promise<Float32Array[]> {
    const vectors: Float32Array[] = [];
    const slice = createTimeSlice(SLICE_MS);
    for (let i = 0; i < texts.length; i++) {
      if (slice.due()) {
        shared.words = undefined;
        await slice.giveWay();
      }
      const given = shared.words?.[i];
      vectors.push(embedTokens(given !== undefined && given.length > 0 ? given : tokenize(texts[i] as string)));
    }
    return vectors;
  }

  return {
    id: `lexical-v1:${dimension}`,
    dimension,
    embed: (texts) => embedAll(texts, {}),
    embedWords: (texts, words) => embedAll(texts, { words }),
  };
}
