import type { SparseValues } from '@memgate/core';

// BM25+ (Lv and Zhai): k1 and b as usual, δ gives every matched term a floor so a long chunk that holds a query
// term still beats one that does not. The values minisearch uses; on LoCoMo's development split, b 0.7 with
// δ 0.5 beat b 0.75 with δ 0 by 0.02 recall@5 (bench/EVAL.md).
const K1 = 1.2;
const B = 0.7;
const DELTA = 0.5;

/**
 * The lexical half of one namespace: postings (term → slot → frequency) and the statistics BM25 needs (document
 * count, total length, document frequency = a posting's size), kept exact on every upsert and delete, so a deleted
 * text never matches and the statistics are the tenant's own.
 */
export class LexicalPostings {
  private readonly postings = new Map<number, Map<number, number>>();
  private readonly lengths = new Map<number, number>();
  private totalLength = 0;

  add(slot: number, terms: SparseValues): void {
    let length = 0;
    terms.indices.forEach((term, i) => {
      const frequency = terms.values[i] as number;
      if (!(frequency > 0)) return;
      const posting = this.postings.get(term);
      if (posting) posting.set(slot, frequency);
      else this.postings.set(term, new Map([[slot, frequency]]));
      length += frequency;
    });
    this.lengths.set(slot, length);
    this.totalLength += length;
  }

  remove(slot: number, terms: SparseValues): void {
    for (const term of terms.indices) {
      const posting = this.postings.get(term);
      posting?.delete(slot);
      if (posting?.size === 0) this.postings.delete(term);
    }
    this.totalLength -= this.lengths.get(slot) ?? 0;
    this.lengths.delete(slot);
  }

  /**
   * Lexical match of every slot holding at least one query term and passing `accepts`: the BM25+ score divided by
   * its ceiling for this query (every known term matched infinitely often), so it lies in [0, 1]. Terms the
   * namespace has never seen are left out of the ceiling: they could match nothing.
   */
  score(query: SparseValues, accepts: (slot: number) => boolean): Map<number, number> {
    const scores = new Map<number, number>();
    const documents = this.lengths.size;
    if (documents === 0) return scores;
    const averageLength = this.totalLength / documents || 1;
    const weighted: [Map<number, number>, number][] = [];
    let ceiling = 0;
    query.indices.forEach((term, i) => {
      const posting = this.postings.get(term);
      const count = query.values[i] as number;
      if (!posting || !(count > 0)) return;
      const idf = Math.log(1 + (documents - posting.size + 0.5) / (posting.size + 0.5));
      weighted.push([posting, count * idf]);
      ceiling += count * idf;
    });
    if (!(ceiling > 0)) return scores;
    for (const [posting, weight] of weighted) {
      for (const [slot, frequency] of posting) {
        if (!accepts(slot)) continue;
        const norm = K1 * (1 - B + (B * (this.lengths.get(slot) as number)) / averageLength);
        const saturated = (DELTA + (frequency * (K1 + 1)) / (frequency + norm)) / (DELTA + K1 + 1);
        scores.set(slot, (scores.get(slot) ?? 0) + (weight * saturated) / ceiling);
      }
    }
    for (const [slot, score] of scores) scores.set(slot, Math.min(1, score));
    return scores;
  }
}
