import { lengthNorm, ownTermsFactor, saturatedFrequencyAt } from '@memgate/core';
import type { TermPostings } from './term-postings.ts';
import type { TermWalk, WalkContext } from './term-walk.ts';

// BM25+ with core's parameters and formula (core/context/lexical/bm25.ts), which the history filter uses too.

/**
 * Lexical matches of one query, valid until the next call: `slots[0..count)` are the matched slots in the order
 * they were first met, and `scores[slot]` is the match of every slot (0 if not matched).
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

// Per-slot state while scoring one query.
const UNSEEN = 0;
const CONTEXT_ONLY = 1;
const MATCHED = 2;
const REFUSED = 3;

/**
 * The query side of a namespace's lexical half (lexical.ts): the BM25+ sums of one query over the slots owning one
 * of its terms, with scratch reused from query to query, so a search touches every slot holding a query term
 * without allocating per slot.
 */
export class LexicalScorer {
  private scores = new Float64Array(1024);
  /** Each touched slot's BM25 length normalisation for this query, computed once rather than once per term. */
  private norms = new Float64Array(1024);
  private state = new Uint8Array(1024);
  /** Each touched slot's count of query terms its own text holds (ownTermsFactor). */
  private ownTerms = new Uint16Array(1024);
  private touched = new Int32Array(1024);
  private matched = new Int32Array(1024);
  private matchedCount = 0;

  constructor(private readonly walk: TermWalk) {}

  /** No matches (the previous query's scores cleared): what a query matching nothing returns. */
  none(): LexicalMatches {
    for (let i = 0; i < this.matchedCount; i++) this.scores[this.matched[i] as number] = 0;
    this.matchedCount = 0;
    return { slots: this.matched, count: 0, scores: this.scores };
  }

  /**
   * Each accepted slot owning a query term: the sum of its terms' shares times their saturated frequency, times
   * ownTermsFactor, capped at 1.
   */
  score(query: WeighedQuery, context: WalkContext): LexicalMatches {
    const { shares, queryTerms, averageLength, accepts } = query;
    const { lengths } = context;
    const matches = this.none();
    const { scores, norms, state, ownTerms, touched, walk } = this;
    let touchedCount = 0;
    // Scores summed in query order (not posting order), over slots owning a query term: no other slot can match.
    walk.markOwners(shares, context);
    for (const [posting, share] of shares) {
      walk.walk(posting, context, false, true);
      const { slots, frequencies } = walk;
      for (let i = 0; i < walk.count; i++) {
        const slot = slots[i] as number;
        const seen = state[slot] as number;
        if (seen === UNSEEN) {
          touched[touchedCount++] = slot;
          if (accepts !== undefined && !accepts(slot)) {
            state[slot] = REFUSED; // skipped by the other terms too
            continue;
          }
          state[slot] = CONTEXT_ONLY;
          scores[slot] = 0;
          ownTerms[slot] = 0;
          norms[slot] = lengthNorm(lengths[slot] as number, averageLength);
        } else if (seen === REFUSED) continue;
        const stored = frequencies[i] as number;
        if (stored > 0) {
          state[slot] = MATCHED;
          ownTerms[slot] = (ownTerms[slot] as number) + 1;
        }
        const frequency = stored < 0 ? -stored : stored;
        scores[slot] = (scores[slot] as number) + share * saturatedFrequencyAt(frequency, norms[slot] as number);
      }
    }
    const matched = this.matched;
    let count = 0;
    for (let i = 0; i < touchedCount; i++) {
      const slot = touched[i] as number;
      if (state[slot] === MATCHED) {
        matched[count++] = slot;
        const score = (scores[slot] as number) * ownTermsFactor(ownTerms[slot] as number, queryTerms);
        scores[slot] = Math.min(1, score);
      } else scores[slot] = 0;
      state[slot] = UNSEEN;
    }
    matches.count = count;
    this.matchedCount = count;
    return matches;
  }

  ensureCapacity(size: number): void {
    if (size <= this.scores.length) return;
    this.scores = new Float64Array(size);
    this.norms = new Float64Array(size);
    this.state = new Uint8Array(size);
    this.ownTerms = new Uint16Array(size);
    this.touched = new Int32Array(size);
    this.matched = new Int32Array(size);
    this.matchedCount = 0;
  }
}
