import { lengthNorm, ownTermsFactor } from '@memgate/core';
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
  /**
   * With `keep` asked: the `keep`-th best score when at least that many matched (else −∞), so every slot among the
   * best `keep` (and any tied with the last of them) scores at least this.
   */
  floor: number;
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
  /** How many of the best scores the caller needs to tell apart (`floor`); 0: none. */
  keep?: number | undefined;
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
  /** The best `keep` scores of the query so far: a min-heap, its least first. */
  private best = new Float64Array(128);

  /** No matches (the previous query's scores cleared): what a query matching nothing returns. */
  none(): LexicalMatches {
    for (let i = 0; i < this.matchedCount; i++) this.scores[this.matched[i] as number] = 0;
    this.matchedCount = 0;
    return { slots: this.matched, count: 0, scores: this.scores, floor: Number.NEGATIVE_INFINITY };
  }

  /**
   * Each accepted slot owning a query term: the sum, in query order, of its terms' shares times their saturated
   * frequency (every term it holds, own or its neighbours'), times ownTermsFactor, capped at 1.
   */
  score(query: WeighedQuery, context: WalkContext): LexicalMatches {
    const { shares, queryTerms, averageLength, accepts, keep = 0 } = query;
    const { lengths } = context;
    const matches = this.none();
    const { scores, matched } = this;
    const weights = Float64Array.from(shares, ([, share]) => share);
    // ownTermsFactor by a slot's count of own terms (at most one per list): two square roots once, not per slot.
    const factors = Array.from({ length: shares.length + 1 }, (_, own) => ownTermsFactor(own, queryTerms));
    let count = 0;
    if (this.best.length < keep) this.best = new Float64Array(keep);
    const best = this.best;
    let kept = 0;
    const { norm, sum } = this.sweep;
    this.sweep.run(
      shares.map(([posting]) => posting),
      context,
      (slot, sweep) => {
        if (accepts !== undefined && !accepts(slot)) return;
        norm[0] = lengthNorm(lengths[slot] as number, averageLength);
        sweep.sumInto(slot, context, weights);
        const score = sum[0] as number;
        // A slot owns a term when its own count is above 0: its frequency is then positive.
        if (sweep.ownTerms === 0) return;
        const value = Math.min(1, score * (factors[sweep.ownTerms] as number));
        scores[slot] = value;
        matched[count++] = slot;
        if (kept < keep) kept = pushScore(best, kept, value);
        else if (keep > 0 && value > (best[0] as number)) replaceLeast(best, keep, value);
      },
    );
    if (keep > 0 && kept >= keep) matches.floor = best[0] as number;
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

/** Adds `value` to the min-heap `heap` of `size` values; returns the new size. */
function pushScore(heap: Float64Array, size: number, value: number): number {
  let at = size;
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if ((heap[parent] as number) <= value) break;
    heap[at] = heap[parent] as number;
    at = parent;
  }
  heap[at] = value;
  return size + 1;
}

/** Replaces the least value of the full min-heap `heap` (of `size`) with the larger `value`. */
function replaceLeast(heap: Float64Array, size: number, value: number): void {
  let at = 0;
  for (;;) {
    const left = 2 * at + 1;
    if (left >= size) break;
    const right = left + 1;
    const child = right < size && (heap[right] as number) < (heap[left] as number) ? right : left;
    if ((heap[child] as number) >= value) break;
    heap[at] = heap[child] as number;
    at = child;
  }
  heap[at] = value;
}
