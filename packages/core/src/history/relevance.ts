import {
  inverseDocumentFrequency,
  type NeighbourWindow,
  ownTermsFactor,
  queryTermFrequencies,
  saturatedFrequency,
} from '../context/lexical/index.ts';
import type { SparseValues } from '../context/ports.ts';
import { type MessageTerms, type MessageTermsCache, slicedMessageTerms } from './message-terms.ts';
import type { TimeSlice } from './time-slice.ts';

export { slicedChunkTerms } from './message-terms.ts';

/**
 * How the messages around a message lend it their terms when the history is scored: wider and lighter than the
 * context store's chunks (DEFAULT_NEIGHBOUR_WINDOW), as chat turns are short and stay on a subject for several
 * turns. Chosen on LoCoMo's development split (bench/EVAL.md, "Ideas tried").
 */
export const HISTORY_NEIGHBOUR_WINDOW: NeighbourWindow = { span: 4, before: 0.2, after: 0.2 };

/** A message scores at least this share of the message right before or after it: the reply to a relevant turn. */
export const REPLY_SHARE = 0.5;

/**
 * Lexical match of each text (its own terms, and its neighbours' as context) with the query: BM25+ with the texts'
 * own statistics (document frequencies, lengths), divided by its ceiling for the query's terms that some text holds,
 * so in [0, 1], times the coordination of the terms it holds itself (ownTermsFactor, over those query terms). As in
 * search, only a text holding a query term of its own matches; the context strengthens it.
 * Linear in the texts' terms: each text is read once, and only for the query's terms.
 */
async function lexicalMatch(texts: readonly MessageTerms[], query: SparseValues, slice?: TimeSlice): Promise<number[]> {
  const queryCount = new Map(query.indices.map((term, i) => [term, query.values[i] as number]));
  const found = texts.map(() => new Map<number, { frequency: number; own: boolean }>());
  const lengths = texts.map((text) => text.length);
  const documentFrequency = new Map<number, number>();
  for (let slot = 0; slot < texts.length; slot++) {
    if (slice?.due()) await slice.giveWay();
    const { terms, contextTerms } = texts[slot] as MessageTerms;
    // The query's terms looked up in the text's (both in ascending id order): its own first, then those lent.
    findTerms(found[slot] as Map<number, { frequency: number; own: boolean }>, terms, query.indices, true);
    if (contextTerms)
      findTerms(found[slot] as Map<number, { frequency: number; own: boolean }>, contextTerms, query.indices, false);
    // As in search's index (local term-postings.ts): a text holding a term only through its neighbours counts
    // their weighted frequency towards the term's document frequency, at most 1.
    for (const [term, { frequency }] of found[slot] ?? []) {
      documentFrequency.set(term, (documentFrequency.get(term) ?? 0) + Math.min(1, frequency));
    }
  }
  const documents = texts.length;
  const averageLength = lengths.reduce((sum, length) => sum + length, 0) / documents || 1;
  const weight = new Map<number, number>();
  let ceiling = 0;
  for (const [term, frequency] of documentFrequency) {
    const idf = inverseDocumentFrequency(documents, frequency);
    weight.set(term, (queryCount.get(term) as number) * idf);
    ceiling += (queryCount.get(term) as number) * idf;
  }
  const scores: number[] = [];
  for (let slot = 0; slot < found.length; slot++) {
    if (slice?.due()) await slice.giveWay();
    const terms = found[slot] as Map<number, { frequency: number; own: boolean }>;
    if (!(ceiling > 0) || !holdsOwn(terms)) {
      scores.push(0);
      continue;
    }
    const length = lengths[slot] as number;
    let score = 0;
    let ownTerms = 0;
    for (const [term, { frequency, own }] of terms) {
      const saturated = saturatedFrequency(frequency, length, averageLength);
      score += ((weight.get(term) as number) * saturated) / ceiling;
      if (own) ownTerms += 1;
    }
    scores.push(Math.min(1, score * ownTermsFactor(ownTerms, weight.size)));
  }
  return scores;
}

/** Adds to `found` the frequencies `sparse` holds of the query's `terms`, as its own terms or as lent ones. */
function findTerms(
  found: Map<number, { frequency: number; own: boolean }>,
  sparse: SparseValues,
  terms: readonly number[],
  own: boolean,
): void {
  for (const term of terms) {
    const at = indexOf(sparse.indices, term);
    if (at < 0) continue;
    const frequency = sparse.values[at] as number;
    const seen = found.get(term);
    found.set(term, { frequency: (seen?.frequency ?? 0) + frequency, own: own || seen?.own === true });
  }
}

/** Whether a text holds some query term of its own. */
function holdsOwn(terms: Map<number, { frequency: number; own: boolean }>): boolean {
  for (const term of terms.values()) if (term.own) return true;
  return false;
}

/** Where `term` is in ascending `ids`, or -1. */
function indexOf(ids: readonly number[], term: number): number {
  let low = 0;
  let high = ids.length - 1;
  while (low <= high) {
    const middle = (low + high) >>> 1;
    const id = ids[middle] as number;
    if (id === term) return middle;
    if (id < term) low = middle + 1;
    else high = middle - 1;
  }
  return -1;
}

const clamp = (score: number) => Math.min(1, Math.max(0, score));

/**
 * Relevance of each message text to `query`, in [0, 1], as search scores a chunk: (1 − w) · `dense[i]` + w · the
 * lexical match over these texts alone (the request's own messages, `lexicalMatch`); a question with no word the
 * texts hold is scored by `dense` alone. Then each text scores at least REPLY_SHARE of the text before or after
 * it, so the answer to a relevant question is kept with it even when it repeats none of its words.
 */
export async function hybridRelevance(
  texts: readonly string[],
  query: string,
  dense: readonly number[],
  {
    lexicalWeight,
    window = HISTORY_NEIGHBOUR_WINDOW,
    slice,
    termsCache,
  }: { lexicalWeight: number; window?: NeighbourWindow; slice?: TimeSlice; termsCache?: MessageTermsCache },
): Promise<number[]> {
  let scores = texts.map((_, index) => clamp(dense[index] ?? 0));
  if (lexicalWeight > 0 && texts.length > 0) {
    const terms = termsCache
      ? await termsCache.termsOf(texts, window, slice)
      : await slicedMessageTerms(texts, window, slice);
    const lexical = await lexicalMatch(terms, queryTermFrequencies(query), slice);
    if (lexical.some((score) => score > 0)) {
      scores = scores.map((score, index) => clamp((1 - lexicalWeight) * score + lexicalWeight * (lexical[index] ?? 0)));
    }
  }
  return scores.map((score, index) =>
    Math.max(score, REPLY_SHARE * (scores[index - 1] ?? 0), REPLY_SHARE * (scores[index + 1] ?? 0)),
  );
}
