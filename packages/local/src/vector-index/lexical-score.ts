import { lengthNorm, ownTermsFactor, saturatedFrequencyAt } from '@memgate/core';
import { LexicalSweep } from './lexical-sweep.ts';
import type { TermPostings } from './term-postings.ts';
import type { WalkContext } from './term-walk.ts';

// BM25+ with core's parameters and formula (core/context/lexical/bm25.ts), which the history filter uses too.

/**
 * Lexical matches of one query, valid until the next call: `slots[0..count)` are the matched slots in slot order,
 * and `scores[slot]` is the match of every slot (0 if not matched).
 */
export interface LexicalMatches {
  slots: Int32Array;
  count: number;
  scores: Float64Array;
}

/** A slot test for filters; `undefined` accepts every slot. */
export type SlotFilter = ((slot: number) => boolean) | undefined;

/** One query as LexicalPostings.score weighs it: each held term's list with its share of the ceiling. */
export interface WeighedQuery {
  /** Each query term some slot holds: its list (exact statistics) and count × idf / ceiling. */
  shares: [TermPostings, number][];
  /** Query terms with a positive count, held or not (ownTermsFactor's denominator). */
  queryTerms: number;
  averageLength: number;
  accepts: SlotFilter;
}

/**
 * The query side of a namespace's lexical half (lexical.ts): the BM25+ sums of one query over the slots owning one
 * of its terms, each slot's terms read in one sweep of the query's lists in slot order (lexical-sweep.ts), with
 * scratch reused from query to query, so a search touches every slot holding a query term without allocating.
 */
export class LexicalScorer {
  private scores = new Float64Array(1024);
  private matched = new Int32Array(1024);
  private matchedCount = 0;
  private readonly sweep = new LexicalSweep();

  /** No matches (the previous query's scores cleared): what a query matching nothing returns. */
  none(): LexicalMatches {
    for (let i = 0; i < this.matchedCount; i++) this.scores[this.matched[i] as number] = 0;
    this.matchedCount = 0;
    return { slots: this.matched, count: 0, scores: this.scores };
  }

  /**
   * Each accepted slot owning a query term: the sum, in query order, of its terms' shares times their saturated
   * frequency (every term it holds, own or its neighbours'), times ownTermsFactor, capped at 1.
   */
  score(query: WeighedQuery, context: WalkContext): LexicalMatches {
    const { shares, queryTerms, averageLength, accepts } = query;
    const { lengths } = context;
    const matches = this.none();
    const { scores, matched } = this;
    const weights = shares.map(([, share]) => share);
    // ownTermsFactor by a slot's count of own terms (at most one per list): two square roots once, not per slot.
    const factors = Array.from({ length: shares.length + 1 }, (_, own) => ownTermsFactor(own, queryTerms));
    let count = 0;
    this.sweep.run(
      shares.map(([posting]) => posting),
      context,
      (slot, sweep) => {
        if (accepts !== undefined && !accepts(slot)) return;
        sweep.frequenciesOf(slot, context);
        const norm = lengthNorm(lengths[slot] as number, averageLength);
        let score = 0;
        let ownTerms = 0;
        const { terms, frequencies } = sweep;
        for (let i = 0; i < sweep.count; i++) {
          const stored = frequencies[i] as number;
          if (stored > 0) ownTerms++;
          const frequency = stored < 0 ? -stored : stored;
          score = score + (weights[terms[i] as number] as number) * saturatedFrequencyAt(frequency, norm);
        }
        // A slot owns a term when its own count is above 0: its frequency is then positive.
        if (ownTerms === 0) return;
        scores[slot] = Math.min(1, score * (factors[ownTerms] as number));
        matched[count++] = slot;
      },
    );
    matches.count = count;
    this.matchedCount = count;
    return matches;
  }

  ensureCapacity(size: number): void {
    if (size <= this.scores.length) return;
    this.scores = new Float64Array(size);
    this.matched = new Int32Array(size);
    this.matchedCount = 0;
  }
}
