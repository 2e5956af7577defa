import type { SparseValues } from '../ports.ts';
import { lexicalTermsOf, termId } from './terms.ts';

export { lexicalTermsOf, termId } from './terms.ts';

/** How a chunk's neighbours lend it their terms (defaults chosen on LoCoMo's development split, bench/EVAL.md). */
export interface NeighbourWindow {
  /** Chunks on each side whose terms count towards a chunk's lexical match. */
  span: number;
  /** What one neighbour's occurrence of a term counts for, next to 1 for the chunk's own. 0: no neighbours. */
  weight: number;
}

export const DEFAULT_NEIGHBOUR_WINDOW: NeighbourWindow = { span: 2, weight: 0.3 };

function sparseOf(counts: Map<number, number>): SparseValues {
  const indices = [...counts.keys()].sort((a, b) => a - b);
  return { indices, values: indices.map((index) => counts.get(index) as number) };
}

function add(counts: Map<number, number>, terms: readonly string[], weight: number): void {
  for (const term of terms) {
    const id = termId(term);
    counts.set(id, (counts.get(id) ?? 0) + weight);
  }
}

/**
 * Term frequencies of each text of a sequence (the chunks of one add, in order), each text's own terms counting 1
 * and its neighbours' within `window.span` counting `window.weight`: a turn of a conversation is then found by the
 * words of the turns around it ("it", "there" and answers rarely repeat the question's words). Texts are indexed
 * as they are; only what is matched is widened.
 */
export function documentTermFrequencies(
  texts: readonly string[],
  window: NeighbourWindow = DEFAULT_NEIGHBOUR_WINDOW,
): SparseValues[] {
  const terms = texts.map(lexicalTermsOf);
  return terms.map((own, position) => {
    const counts = new Map<number, number>();
    add(counts, own, 1);
    if (window.weight > 0) {
      const from = Math.max(0, position - window.span);
      const to = Math.min(terms.length - 1, position + window.span);
      for (let other = from; other <= to; other++) {
        if (other !== position) add(counts, terms[other] as string[], window.weight);
      }
    }
    return sparseOf(counts);
  });
}

/** A query's terms with their counts; empty when it holds only stop words or symbols. */
export function queryTermFrequencies(query: string): SparseValues {
  const counts = new Map<number, number>();
  add(counts, lexicalTermsOf(query), 1);
  return sparseOf(counts);
}
