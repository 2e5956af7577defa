import type { SparseValues } from '@memgate/core';

// BM25+ (Lv and Zhai): k1 and b as usual, δ gives every matched term a floor so a long chunk that holds a query
// term still beats one that does not. The values minisearch uses; on LoCoMo's development split, b 0.7 with
// δ 0.5 beat b 0.75 with δ 0 by 0.02 recall@5 (bench/EVAL.md).
const K1 = 1.2;
const B = 0.7;
const DELTA = 0.5;

/** One slot's frequency of a term: its own and its neighbours' (context) share. */
interface Posting {
  frequency: number;
  own: boolean;
}

/** What a slot holds: its own terms and its neighbours' (VectorItem.contextTerms). */
export interface SlotTerms {
  terms?: SparseValues | undefined;
  contextTerms?: SparseValues | undefined;
}

/**
 * The lexical half of one namespace: postings (term → slot → frequency) and the statistics BM25 needs (document
 * count, total length, document frequency = a posting's size), kept exact on every upsert and delete, so a deleted
 * text never matches and the statistics are the tenant's own. A slot's frequency of a term is its own count plus
 * its neighbours' weighted count; its length, the sum of both.
 */
export class LexicalPostings {
  private readonly postings = new Map<number, Map<number, Posting>>();
  private readonly lengths = new Map<number, number>();
  private totalLength = 0;

  add(slot: number, { terms, contextTerms }: SlotTerms): void {
    const merged = new Map<number, Posting>();
    let length = 0;
    for (const [sparse, own] of [
      [terms, true],
      [contextTerms, false],
    ] as const) {
      sparse?.indices.forEach((term, i) => {
        const frequency = sparse.values[i] as number;
        if (!(frequency > 0)) return;
        const posting = merged.get(term);
        merged.set(term, { frequency: (posting?.frequency ?? 0) + frequency, own: own || posting?.own === true });
        length += frequency;
      });
    }
    if (merged.size === 0) return;
    for (const [term, posting] of merged) {
      const slots = this.postings.get(term);
      if (slots) slots.set(slot, posting);
      else this.postings.set(term, new Map([[slot, posting]]));
    }
    this.lengths.set(slot, length);
    this.totalLength += length;
  }

  remove(slot: number, { terms, contextTerms }: SlotTerms): void {
    for (const term of [...(terms?.indices ?? []), ...(contextTerms?.indices ?? [])]) {
      const slots = this.postings.get(term);
      slots?.delete(slot);
      if (slots?.size === 0) this.postings.delete(term);
    }
    this.totalLength -= this.lengths.get(slot) ?? 0;
    this.lengths.delete(slot);
  }

  /**
   * Lexical match of every slot that holds at least one query term of its own and passes `accepts`: the BM25+
   * score divided by its ceiling for this query (every query term matched infinitely often), so it lies in [0, 1].
   * A query term the namespace has never seen counts in the ceiling at the highest inverse document frequency,
   * so a question whose main words appear nowhere scores low everywhere.
   */
  score(query: SparseValues, accepts: (slot: number) => boolean): Map<number, number> {
    const documents = this.lengths.size;
    if (documents === 0) return new Map();
    const averageLength = this.totalLength / documents || 1;
    const weighted: [Map<number, Posting>, number][] = [];
    let ceiling = 0;
    query.indices.forEach((term, i) => {
      const count = query.values[i] as number;
      if (!(count > 0)) return;
      const slots = this.postings.get(term);
      const frequency = slots?.size ?? 0;
      const idf = Math.log(1 + (documents - frequency + 0.5) / (frequency + 0.5));
      ceiling += count * idf;
      if (slots) weighted.push([slots, count * idf]);
    });
    const scores = new Map<number, { score: number; own: boolean }>();
    if (!(ceiling > 0)) return new Map();
    for (const [slots, weight] of weighted) {
      for (const [slot, { frequency, own }] of slots) {
        if (!accepts(slot)) continue;
        const norm = K1 * (1 - B + (B * (this.lengths.get(slot) as number)) / averageLength);
        const saturated = (DELTA + (frequency * (K1 + 1)) / (frequency + norm)) / (DELTA + K1 + 1);
        const entry = scores.get(slot);
        const score = (entry?.score ?? 0) + (weight * saturated) / ceiling;
        scores.set(slot, { score, own: own || entry?.own === true });
      }
    }
    const matched = new Map<number, number>();
    for (const [slot, { score, own }] of scores) if (own) matched.set(slot, Math.min(1, score));
    return matched;
  }
}
