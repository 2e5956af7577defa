import { runToEnd } from '../../history/time-slice.ts';
import type { SparseValues } from '../ports.ts';
import { speakerTermIdsOf } from './speakers.ts';
import { TermTable } from './term-table.ts';
import { lexicalTermIdsOf, termIdsOfWords } from './terms.ts';

export {
  inverseDocumentFrequency,
  lengthNorm,
  ownTermsFactor,
  saturatedFrequency,
  saturatedFrequencyAt,
} from './bm25.ts';
export { querySpeakerIds, SPOKEN_TERM, speakerTermIdsOf } from './speakers.ts';
export { lexicalTermIdsOf, lexicalTermsOf, termId, textWords } from './terms.ts';

/** How a chunk's neighbours lend it their terms (defaults chosen on LoCoMo's development split, bench/EVAL.md). */
export interface NeighbourWindow {
  /** Chunks on each side whose terms count towards a chunk's lexical match. */
  span: number;
  /** What one occurrence of a term in a chunk before it counts for, next to 1 for the chunk's own. */
  before: number;
  /** The same for a chunk after it. Both 0: no neighbours. */
  after: number;
}

/**
 * A chunk borrows more from the chunks before it than from those after: a reply is about what it answers, and a
 * passage continues the one before it ("It was Matt" after "Which singer did you see?"). On LoCoMo's development
 * split, 0.45 before and 0.15 after beat 0.3 on both sides by 0.01 to 0.02 recall@10 on each half of the split.
 */
export const DEFAULT_NEIGHBOUR_WINDOW: NeighbourWindow = { span: 2, before: 0.45, after: 0.15 };

/** No neighbours: each chunk's own terms only. */
export const NO_NEIGHBOURS: NeighbourWindow = { span: 0, before: 0, after: 0 };

function sparseOf(counts: Map<number, number>): SparseValues {
  const indices = [...counts.keys()].sort((a, b) => a - b);
  return { indices, values: indices.map((index) => counts.get(index) as number) };
}

/** Adds `weight` per occurrence, one at a time in text order (the sums' rounding is part of the stored values). */
function add(counts: Map<number, number>, ids: readonly number[], weight: number): void {
  for (const id of ids) counts.set(id, (counts.get(id) ?? 0) + weight);
}

/** What one chunk gives the lexical index: its own term frequencies and its neighbours' (weighted). */
export interface ChunkTerms {
  terms: SparseValues;
  /** Absent when the chunk has no neighbours or their weight is 0. */
  contextTerms?: SparseValues;
}

/**
 * The terms of each text of a sequence (the chunks of one add, in order): its own, each occurrence counting 1, and
 * as context those of its neighbours within `window.span`, each counting `window.before` (a text before it) or
 * `window.after` (a text after it). A text opening with a speaker label ("Caroline: …") also holds its speaker's
 * markers (speakerTermIdsOf), its own only. A chunk is matched only
 * by its own words; its neighbours' then strengthen the match (a turn of a conversation that names the subject
 * once is found by the question's other words in the turns around it), and never make an unrelated chunk match.
 * `words`: the texts' `textWords`, when the caller has them already (an add's, shared with the embedder).
 */
export function chunkTerms(
  texts: readonly string[],
  window: NeighbourWindow = DEFAULT_NEIGHBOUR_WINDOW,
  words?: readonly (readonly string[])[],
): ChunkTerms[] {
  const { own, neighbours } = ownTermsFirst(texts, window, words);
  return own.map((terms, position) => {
    const result: ChunkTerms = { terms };
    const context = neighbours.contextTermsAt(position);
    if (context) result.contextTerms = context;
    return result;
  });
}

/**
 * `chunkTerms` in two steps, for a caller that holds the terms a while before it writes them (an add, across its
 * rows' writes): each text's own terms now, and its contextTerms (three times as many numbers) when asked for,
 * from term ranks kept in typed arrays. Made just before they are written, they die young instead of being copied
 * into the old space with the rest of the add. The same values to the bit as `chunkTerms`.
 */
export function ownTermsFirst(
  texts: readonly string[],
  window: NeighbourWindow = DEFAULT_NEIGHBOUR_WINDOW,
  words?: readonly (readonly string[])[],
): OwnTermsFirst {
  return runToEnd(ownTermsInSteps(texts, window, words));
}

export interface OwnTermsFirst {
  own: SparseValues[];
  neighbours: NeighbourTerms;
}

/**
 * `ownTermsFirst`'s work one text at a time, pausing after each: an add of megabytes reads its chunks' terms for
 * hundreds of milliseconds, and its caller gives the event loop back between steps (add-vectors.ts).
 */
export function* ownTermsInSteps(
  texts: readonly string[],
  window: NeighbourWindow = DEFAULT_NEIGHBOUR_WINDOW,
  words?: readonly (readonly string[])[],
): Generator<void, OwnTermsFirst> {
  // Each text is tokenised once; its neighbours reuse its term ranks.
  const ids: number[][] = [];
  for (let position = 0; position < texts.length; position++) {
    const textWords = words?.[position];
    ids.push(textWords ? termIdsOfWords(textWords) : lexicalTermIdsOf(texts[position] as string));
    yield;
  }
  // A text's speaker (a label opening it) is its own: a neighbour's turn is not spoken by it.
  const speakers = texts.map(speakerTermIdsOf);
  const table = yield* TermTable.collecting([...ids, ...speakers]);
  const ranks: Int32Array[] = [];
  const own: SparseValues[] = [];
  for (let position = 0; position < ids.length; position++) {
    const list = table.ranks(ids[position] as number[]);
    ranks.push(list);
    table.add(list, 1);
    const speaker = speakers[position] as number[];
    if (speaker.length > 0) table.add(table.ranks(speaker), 1);
    own.push(table.take());
    yield;
  }
  return { own, neighbours: new NeighbourTerms(table, ranks, window) };
}

/** The contextTerms of a sequence's texts (`ownTermsFirst`), one text at a time. */
export class NeighbourTerms {
  private readonly lends: boolean;

  constructor(
    private readonly table: TermTable,
    private readonly ranks: readonly Int32Array[],
    private readonly window: NeighbourWindow,
  ) {
    this.lends = (window.before > 0 || window.after > 0) && window.span > 0;
  }

  /** Sums the neighbours of `position` into the table, in `chunkTerms`' order; false when it lends none. */
  private sum(position: number): boolean {
    if (!this.lends) return false;
    const { window, ranks, table } = this;
    const from = Math.max(0, position - window.span);
    const to = Math.min(ranks.length - 1, position + window.span);
    for (let other = from; other <= to; other++) {
      const weight = other < position ? window.before : other > position ? window.after : 0;
      if (weight > 0) table.add(ranks[other] as Int32Array, weight);
    }
    return !table.empty;
  }

  /** The text's contextTerms, as `chunkTerms` gives them (absent: none). */
  contextTermsAt(position: number): SparseValues | undefined {
    return this.sum(position) ? this.table.take() : undefined;
  }

  /** How many terms `contextTermsAt(position)` holds (-1: none), without making them. */
  contextSizeAt(position: number): number {
    return this.sum(position) ? this.table.clear() : -1;
  }
}

/** A chunk's neighbours as `chunkTerms` lends them: their offsets from it in the order summed, and their weights. */
export interface NeighbourOffsets {
  offsets: number[];
  weights: number[];
}

/**
 * The neighbours of each of `count` texts that `chunkTerms` sums into its contextTerms with the same `window`, in
 * the same order (VectorChain): an index can then lend them at query time and get the same sums.
 */
export function neighbourOffsets(
  count: number,
  window: NeighbourWindow = DEFAULT_NEIGHBOUR_WINDOW,
): NeighbourOffsets[] {
  const lends = (window.before > 0 || window.after > 0) && window.span > 0;
  return Array.from({ length: count }, (_, position) => {
    const chain: NeighbourOffsets = { offsets: [], weights: [] };
    if (!lends) return chain;
    const from = Math.max(0, position - window.span);
    const to = Math.min(count - 1, position + window.span);
    for (let other = from; other <= to; other++) {
      const weight = other < position ? window.before : other > position ? window.after : 0;
      if (weight > 0) {
        chain.offsets.push(other - position);
        chain.weights.push(weight);
      }
    }
    return chain;
  });
}

/** A query's terms with their counts; empty when it holds only stop words or symbols. */
export function queryTermFrequencies(query: string): SparseValues {
  const counts = new Map<number, number>();
  add(counts, lexicalTermIdsOf(query), 1);
  return sparseOf(counts);
}
