import { inverseDocumentFrequency, type SparseValues, saturatedFrequency } from '@memgate/core';

// BM25+ with core's parameters and formula (core/context/lexical/bm25.ts), which the history filter uses too.

/** What a slot holds: its own terms and its neighbours' (VectorItem.contextTerms). */
export interface SlotTerms {
  terms?: SparseValues | undefined;
  contextTerms?: SparseValues | undefined;
}

/** Lexical matches of one query: the matched `slots`, and `scores[slot]` for every slot (0 if not matched), valid until the next call. */
export interface LexicalMatches {
  slots: number[];
  scores: Float64Array;
}

/**
 * The lexical half of one namespace: postings (term → slot → frequency) and the statistics BM25 needs (document
 * count, total length, document frequency = a posting's size), kept exact on every upsert and delete, so a deleted
 * text never matches and the statistics are the tenant's own. A slot's frequency of a term is its own count plus
 * its neighbours' weighted count, stored negated when the term is only its neighbours' (it then cannot make the
 * slot match); its length is the sum of both.
 */
export class LexicalPostings {
  private readonly postings = new Map<number, Map<number, number>>();
  private lengths = new Float64Array(1024);
  private documents = 0;
  private totalLength = 0;
  // Scratch for `score`, reused: a search touches every slot holding a query term, without allocating per slot.
  private scores = new Float64Array(1024);
  private owned = new Uint8Array(1024);
  private matched: number[] = [];

  add(slot: number, { terms, contextTerms }: SlotTerms): void {
    const merged = new Map<number, number>();
    let length = 0;
    terms?.indices.forEach((term, i) => {
      const frequency = terms.values[i] as number;
      if (frequency > 0) merged.set(term, (merged.get(term) ?? 0) + frequency);
      if (frequency > 0) length += frequency;
    });
    const own = new Set(merged.keys());
    contextTerms?.indices.forEach((term, i) => {
      const frequency = contextTerms.values[i] as number;
      if (frequency > 0) merged.set(term, (merged.get(term) ?? 0) + frequency);
      if (frequency > 0) length += frequency;
    });
    if (merged.size === 0) return;
    for (const [term, frequency] of merged) {
      const stored = own.has(term) ? frequency : -frequency;
      const slots = this.postings.get(term);
      if (slots) slots.set(slot, stored);
      else this.postings.set(term, new Map([[slot, stored]]));
    }
    this.ensureCapacity(slot + 1);
    this.lengths[slot] = length;
    this.documents += 1;
    this.totalLength += length;
  }

  remove(slot: number, { terms, contextTerms }: SlotTerms): void {
    let removed = false;
    for (const term of [...(terms?.indices ?? []), ...(contextTerms?.indices ?? [])]) {
      const slots = this.postings.get(term);
      if (slots?.delete(slot)) removed = true;
      if (slots?.size === 0) this.postings.delete(term);
    }
    if (!removed) return;
    this.documents -= 1;
    this.totalLength -= this.lengths[slot] as number;
    this.lengths[slot] = 0;
  }

  /**
   * Lexical match of every slot that holds at least one query term of its own and passes `accepts`: the BM25+
   * score divided by its ceiling for this query (every query term matched infinitely often), so it lies in [0, 1].
   * A query term the namespace has never seen counts in the ceiling at the highest inverse document frequency,
   * so a question whose main words appear nowhere scores low everywhere.
   */
  score(query: SparseValues, accepts: (slot: number) => boolean): LexicalMatches {
    const { scores, owned, lengths } = this;
    for (const slot of this.matched) scores[slot] = 0;
    const slots: number[] = [];
    this.matched = slots;
    if (this.documents === 0) return { slots, scores };
    const averageLength = this.totalLength / this.documents || 1;
    const weighted: [Map<number, number>, number][] = [];
    let ceiling = 0;
    query.indices.forEach((term, i) => {
      const count = query.values[i] as number;
      if (!(count > 0)) return;
      const posting = this.postings.get(term);
      const frequency = posting?.size ?? 0;
      const idf = inverseDocumentFrequency(this.documents, frequency);
      ceiling += count * idf;
      if (posting) weighted.push([posting, count * idf]);
    });
    if (!(ceiling > 0)) return { slots, scores };
    const touched: number[] = [];
    for (const [posting, weight] of weighted) {
      const share = weight / ceiling;
      for (const [slot, stored] of posting) {
        if (owned[slot] === 0) {
          if (!accepts(slot)) {
            owned[slot] = 3; // refused: skipped by the other terms too
            touched.push(slot);
            continue;
          }
          owned[slot] = 1;
          scores[slot] = 0;
          touched.push(slot);
        } else if (owned[slot] === 3) continue;
        const frequency = stored < 0 ? -stored : stored;
        if (stored > 0) owned[slot] = 2;
        scores[slot] =
          (scores[slot] as number) + share * saturatedFrequency(frequency, lengths[slot] as number, averageLength);
      }
    }
    for (const slot of touched) {
      if (owned[slot] === 2) {
        slots.push(slot);
        if ((scores[slot] as number) > 1) scores[slot] = 1;
      } else scores[slot] = 0;
      owned[slot] = 0;
    }
    return { slots, scores };
  }

  private ensureCapacity(slots: number): void {
    if (slots <= this.lengths.length) return;
    const size = Math.max(slots, this.lengths.length * 2);
    const lengths = new Float64Array(size);
    lengths.set(this.lengths);
    this.lengths = lengths;
    const scores = new Float64Array(size);
    scores.set(this.scores);
    this.scores = scores;
    this.owned = new Uint8Array(size);
  }
}
