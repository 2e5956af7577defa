import { lengthNorm, ownTermsFactor, saturatedFrequencyAt } from '@memgate/core';
import { LexicalSweep, type Pruning } from './lexical-sweep.ts';
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
  /** Only the best `keep` were asked for, and some slots below them were skipped (their scores left at 0). */
  pruned?: boolean;
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
  /**
   * Only the `keep` best scores are needed: a slot may then be left out (not matched) when at least `keep` accepted
   * slots score strictly more. Every slot scoring at least the `keep`-th best is matched, with its exact score.
   */
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
  /** The best scores so far of a query that keeps some (a min-heap: its least at 0). */
  private best = new Float64Array(128);

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
    const { shares, queryTerms, averageLength, accepts, keep = 0 } = query;
    const { lengths } = context;
    const matches = this.none();
    const { scores, matched } = this;
    const weights = shares.map(([, share]) => share);
    // ownTermsFactor by a slot's count of own terms (at most one per list): two square roots once, not per slot.
    const factors = Array.from({ length: shares.length + 1 }, (_, own) => ownTermsFactor(own, queryTerms));
    let count = 0;
    let kept = 0;
    if (this.best.length < keep) this.best = new Float64Array(keep);
    const best = this.best;
    // A block is skipped when even its bound is below the `keep`-th best so far: what its owners could score at most
    // (their most frequency of each term, their shortest length, their most own terms), computed as a slot's score
    // is, then raised by a millionth of a millionth against the rounding of the sums it bounds.
    let bounded = false;
    const reaches = (frequencies: Float64Array, length: number, ownTerms: number) => {
      const norm = lengthNorm(length, averageLength);
      let bound = 0;
      for (let t = 0; t < weights.length; t++) {
        const frequency = frequencies[t] as number;
        if (frequency > 0) bound += (weights[t] as number) * saturatedFrequencyAt(frequency, norm);
      }
      const factor = factors[Math.min(weights.length, ownTerms)] as number;
      if (Math.min(1, bound * factor) * (1 + 1e-12) >= (best[0] as number)) return true;
      matches.pruned = true;
      return false;
    };
    const worth: Pruning = {
      block: (block, sweep) => {
        bounded = kept >= keep && sweep.boundBlock(block, context);
        if (!bounded) return true;
        return reaches(sweep.bounds.frequencies, sweep.bounds.shortestOf(block), sweep.bounds.mostOwnTermsOf(block));
      },
      slot: (slot, sweep) => {
        if (!bounded || kept < keep) return true;
        sweep.boundSlot(slot);
        return reaches(sweep.bounds.frequencies, lengths[slot] as number, sweep.bounds.ownCountOf(slot));
      },
    };
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
        const value = Math.min(1, score * (factors[ownTerms] as number));
        scores[slot] = value;
        matched[count++] = slot;
        if (keep === 0) return;
        if (kept < keep) heapPush(best, kept++, value);
        else if (value > (best[0] as number)) heapReplaceLeast(best, kept, value);
      },
      keep > 0 ? worth : undefined,
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

/** Adds `value` to the min-heap `heap[0..size)`. */
function heapPush(heap: Float64Array, size: number, value: number): void {
  let i = size;
  while (i > 0) {
    const parent = (i - 1) >> 1;
    if ((heap[parent] as number) <= value) break;
    heap[i] = heap[parent] as number;
    i = parent;
  }
  heap[i] = value;
}

/** Replaces the least of the min-heap `heap[0..size)` by `value`. */
function heapReplaceLeast(heap: Float64Array, size: number, value: number): void {
  let i = 0;
  for (;;) {
    const left = 2 * i + 1;
    if (left >= size) break;
    const right = left + 1;
    const child = right < size && (heap[right] as number) < (heap[left] as number) ? right : left;
    if ((heap[child] as number) >= value) break;
    heap[i] = heap[child] as number;
    i = child;
  }
  heap[i] = value;
}
