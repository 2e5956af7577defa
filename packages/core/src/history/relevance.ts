import {
  type ChunkTerms,
  chunkTerms,
  inverseDocumentFrequency,
  type NeighbourWindow,
  ownTermsFactor,
  queryTermFrequencies,
  saturatedFrequency,
} from '../context/lexical/index.ts';
import type { SparseValues } from '../context/ports.ts';
import type { TimeSlice } from './time-slice.ts';

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
async function lexicalMatch(texts: readonly ChunkTerms[], query: SparseValues, slice?: TimeSlice): Promise<number[]> {
  const queryCount = new Map(query.indices.map((term, i) => [term, query.values[i] as number]));
  const found = texts.map(() => new Map<number, { frequency: number; own: boolean }>());
  const lengths = texts.map(() => 0);
  const documentFrequency = new Map<number, number>();
  for (const [slot, { terms, contextTerms }] of texts.entries()) {
    if (slice?.due()) await slice.giveWay();
    for (const [sparse, own] of [
      [terms, true],
      [contextTerms, false],
    ] as const) {
      sparse?.indices.forEach((term, i) => {
        const frequency = sparse.values[i] as number;
        lengths[slot] = (lengths[slot] as number) + frequency;
        if (!queryCount.has(term)) return;
        const seen = found[slot]?.get(term);
        found[slot]?.set(term, { frequency: (seen?.frequency ?? 0) + frequency, own: own || seen?.own === true });
      });
    }
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
  for (const [slot, terms] of found.entries()) {
    if (slice?.due()) await slice.giveWay();
    if (!(ceiling > 0) || ![...terms.values()].some((term) => term.own)) {
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

const clamp = (score: number) => Math.min(1, Math.max(0, score));

/** Messages whose terms are read between two checks of the time slice, and their characters at most. */
const BATCH = 32;
const BATCH_CHARS = 16_384;

/**
 * chunkTerms over all texts, a batch at a time (each batch read with its neighbours, so windows cross batch edges),
 * giving the event loop back when the slice is used up: a request of megabytes does not hold other requests.
 */
export async function slicedChunkTerms(texts: readonly string[], window: NeighbourWindow, slice?: TimeSlice) {
  const out: ChunkTerms[] = [];
  const margin = Math.max(0, Math.floor(window.span));
  for (let from = 0, to = 0; from < texts.length; from = to) {
    // A batch ends after BATCH texts or once it holds BATCH_CHARS characters (at least one text).
    let chars = 0;
    for (to = from; to < texts.length && to - from < BATCH && (to === from || chars < BATCH_CHARS); to += 1) {
      chars += (texts[to] as string).length;
    }
    const start = Math.max(0, from - margin);
    const terms = chunkTerms(texts.slice(start, Math.min(texts.length, to + margin)), window);
    out.push(...terms.slice(from - start, from - start + (to - from)));
    if (slice?.due()) await slice.giveWay();
  }
  return out;
}

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
  }: { lexicalWeight: number; window?: NeighbourWindow; slice?: TimeSlice },
): Promise<number[]> {
  let scores = texts.map((_, index) => clamp(dense[index] ?? 0));
  if (lexicalWeight > 0 && texts.length > 0) {
    const lexical = await lexicalMatch(
      await slicedChunkTerms(texts, window, slice),
      queryTermFrequencies(query),
      slice,
    );
    if (lexical.some((score) => score > 0)) {
      scores = scores.map((score, index) => clamp((1 - lexicalWeight) * score + lexicalWeight * (lexical[index] ?? 0)));
    }
  }
  return scores.map((score, index) =>
    Math.max(score, REPLY_SHARE * (scores[index - 1] ?? 0), REPLY_SHARE * (scores[index + 1] ?? 0)),
  );
}
