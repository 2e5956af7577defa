// BM25+ (Lv and Zhai): k1 and b as usual, δ gives every matched term a floor so a long text that holds a query
// term still beats one that does not. The values minisearch uses; on LoCoMo's development split, b 0.7 with
// δ 0.5 beat b 0.75 with δ 0 by 0.02 recall@5 (bench/EVAL.md). One formula for search's lexical index and for
// the history filter, so both score relevance the same way.
const K1 = 1.2;
const B = 0.7;
const DELTA = 0.5;

/** Inverse document frequency of a term found in `frequency` of `documents` texts (never negative). */
export function inverseDocumentFrequency(documents: number, frequency: number): number {
  return Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5));
}

/**
 * A matched term's BM25+ term-frequency factor divided by its limit (the term matched infinitely often), so it
 * lies in (0, 1]: a text's score over a query's terms, weighted by their idf and divided by the sum of those
 * weights, is then in [0, 1].
 */
export function saturatedFrequency(frequency: number, length: number, averageLength: number): number {
  return saturatedFrequencyAt(frequency, lengthNorm(length, averageLength));
}

/** The length normalisation of a text of `length` (its part of `saturatedFrequency`, the same for all its terms). */
export function lengthNorm(length: number, averageLength: number): number {
  return K1 * (1 - B + (B * length) / averageLength);
}

/** `saturatedFrequency` given the text's `lengthNorm`: a caller scoring many terms of one text computes it once. */
export function saturatedFrequencyAt(frequency: number, norm: number): number {
  return (DELTA + (frequency * (K1 + 1)) / (frequency + norm)) / (DELTA + K1 + 1);
}

/**
 * Coordination (as in Lucene's classic scoring, where a text's score was multiplied by the share of the query's
 * terms it holds), over the query terms a text holds in its own words: its neighbours lend it terms (chunkTerms), so
 * a chunk that only echoes its neighbours' words would otherwise rank with one that holds them itself. A fourth
 * root, as the plain share (Lucene's) drops evidence found through the neighbours: on LoCoMo's development split
 * recall@1 rose on each of the 5 conversations (0.369 → 0.391 overall) with recall@10 unchanged; the square root
 * and the plain share cost 0.014 and 0.033 recall@10 (bench/EVAL.md).
 */
export function ownTermsFactor(ownTerms: number, queryTerms: number): number {
  return queryTerms > 0 ? Math.sqrt(Math.sqrt(Math.min(1, ownTerms / queryTerms))) : 0;
}
