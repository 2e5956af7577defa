import {
  inverseDocumentFrequency,
  lengthNorm,
  ownTermsFactor,
  type SparseValues,
  saturatedFrequencyAt,
} from '@memgate/core';
import { holdingUnits, TermPostings } from './term-postings.ts';

// BM25+ with core's parameters and formula (core/context/lexical/bm25.ts), which the history filter uses too.

/** What a slot holds: its own terms and its neighbours' (VectorItem.contextTerms). */
export interface SlotTerms {
  terms?: SparseValues | undefined;
  contextTerms?: SparseValues | undefined;
}

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

// Per-slot state while scoring one query.
const UNSEEN = 0;
const CONTEXT_ONLY = 1;
const MATCHED = 2;
const REFUSED = 3;

/**
 * The lexical half of one namespace: postings (term → slots with their frequency, typed arrays, see
 * term-postings.ts) and the statistics BM25 needs (document count, total length, each term's document frequency,
 * holdingUnits), kept exact on every upsert and delete, so a deleted text never matches and the statistics are
 * the tenant's own. A slot's frequency of a term is its own count plus its neighbours' weighted count, stored
 * negated when the term is only its neighbours' (it then cannot make the slot match); its length is the sum of both.
 */
export class LexicalPostings {
  private readonly postings = new Map<number, TermPostings>();
  private lengths = new Float64Array(1024);
  /**
   * Each counted slot's terms (own and neighbours'), for `remove`: one typed array per slot, 4 bytes a term, instead
   * of the slot's frequencies as JS arrays (the postings already hold those).
   */
  private slotTerms: (Uint32Array | undefined)[] = [];
  /** Beside each slot's term ids, how much it holds each (holdingUnits), to take back from the document frequency. */
  private slotHoldings: (Uint16Array | undefined)[] = [];
  /** Bumped when a slot's postings are removed: older postings of the slot are dead (term-postings.ts). */
  private epochs = new Uint32Array(1024);
  private documents = 0;
  private totalLength = 0;
  // Scratch for `score`, reused: a search touches every slot holding a query term, without allocating per slot.
  private scores = new Float64Array(1024);
  /** Each touched slot's BM25 length normalisation for this query, computed once rather than once per term. */
  private norms = new Float64Array(1024);
  private state = new Uint8Array(1024);
  /** Each touched slot's count of query terms its own text holds (ownTermsFactor). */
  private ownTerms = new Uint16Array(1024);
  private touched = new Int32Array(1024);
  private matched = new Int32Array(1024);
  private matchedCount = 0;

  add(slot: number, { terms, contextTerms }: SlotTerms): void {
    const count = mergeFrequencies(terms, contextTerms);
    if (count === 0) return;
    this.ensureCapacity(slot + 1);
    const epoch = this.epochs[slot] as number;
    const ids = merged.terms.slice(0, count);
    const holdings = new Uint16Array(count);
    const { signed } = merged;
    for (let i = 0; i < count; i++) {
      const term = ids[i] as number;
      let posting = this.postings.get(term);
      if (!posting) {
        posting = new TermPostings();
        this.postings.set(term, posting);
      }
      const frequency = signed[i] as number;
      posting.append(slot, frequency, epoch);
      holdings[i] = holdingUnits(frequency < 0 ? -frequency : frequency);
    }
    this.slotTerms[slot] = ids;
    this.slotHoldings[slot] = holdings;
    // Summed as the terms come (own, then neighbours'), so a slot's length is the same bits after a restart.
    const length = positiveSum(contextTerms, positiveSum(terms, 0));
    this.lengths[slot] = length;
    this.documents += 1;
    this.totalLength += length;
  }

  remove(slot: number): void {
    const ids = this.slotTerms[slot];
    if (ids === undefined) return; // never counted
    const holdings = this.slotHoldings[slot] as Uint16Array;
    this.slotTerms[slot] = undefined;
    this.slotHoldings[slot] = undefined;
    const epochs = this.epochs;
    epochs[slot] = ((epochs[slot] as number) + 1) >>> 0;
    for (const [at, term] of ids.entries()) {
      const posting = this.postings.get(term);
      if (!posting) continue;
      posting.release(holdings[at] as number);
      if (posting.live === 0) this.postings.delete(term);
      else if (posting.wasteful()) posting.compact(epochs);
    }
    this.documents -= 1;
    this.totalLength -= this.lengths[slot] as number;
    this.lengths[slot] = 0;
  }

  /**
   * Lexical match of every slot that holds at least one query term of its own and passes `accepts`: the BM25+
   * score divided by its ceiling for this query (every query term matched infinitely often), times the share of the
   * query's terms its own text holds (ownTermsFactor), so it lies in [0, 1].
   * A query term the namespace has never seen counts in the ceiling at the highest inverse document frequency,
   * so a question whose main words appear nowhere scores low everywhere.
   */
  score(query: SparseValues, accepts: SlotFilter): LexicalMatches {
    for (let i = 0; i < this.matchedCount; i++) this.scores[this.matched[i] as number] = 0;
    this.matchedCount = 0;
    const matches: LexicalMatches = { slots: this.matched, count: 0, scores: this.scores };
    if (this.documents === 0) return matches;
    const averageLength = this.totalLength / this.documents || 1;
    const weighted: [TermPostings, number][] = [];
    let ceiling = 0;
    let queryTerms = 0;
    query.indices.forEach((term, i) => {
      const count = query.values[i] as number;
      if (!(count > 0)) return;
      queryTerms += 1;
      const posting = this.postings.get(term);
      const idf = inverseDocumentFrequency(this.documents, posting?.documentFrequency ?? 0);
      ceiling += count * idf;
      if (posting) weighted.push([posting, count * idf]);
    });
    if (!(ceiling > 0)) return matches;
    const { scores, norms, state, ownTerms, lengths, epochs, touched } = this;
    let touchedCount = 0;
    // Each slot's score is summed over the query's terms in query order, so it does not depend on posting order.
    for (const [posting, weight] of weighted) {
      const share = weight / ceiling;
      const { slots, frequencies, epochs: written, size } = posting;
      const holdsDead = size !== posting.live;
      for (let i = 0; i < size; i++) {
        const slot = slots[i] as number;
        if (holdsDead && written[i] !== epochs[slot]) continue; // a removed slot's posting, not compacted yet
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

  /** Terms with a live posting (a list is dropped when its last posting is removed). */
  get termCount(): number {
    return this.postings.size;
  }

  /** Live postings per term, each list in slot order (what a snapshot stores, lexical-snapshot.ts). */
  *terms(): Generator<[term: number, slots: Int32Array<ArrayBuffer>, frequencies: Float64Array<ArrayBuffer>]> {
    for (const [term, posting] of this.postings) yield [term, ...posting.liveInSlotOrder(this.epochs)];
  }

  /** The length of every slot below `slotCount` (0: not counted). */
  lengthsUpTo(slotCount: number): Float64Array {
    const lengths = new Float64Array(slotCount);
    lengths.set(this.lengths.subarray(0, Math.min(slotCount, this.lengths.length)));
    return lengths;
  }

  /**
   * Loads a snapshot into an empty instance: slot lengths, then each term's postings. The statistics are summed in
   * slot order, as adding the slots one by one in that order would.
   */
  restore(
    lengths: Float64Array,
    terms: Iterable<[term: number, slots: Int32Array<ArrayBuffer>, frequencies: Float64Array<ArrayBuffer>]>,
  ): void {
    this.ensureCapacity(lengths.length);
    this.lengths.set(lengths);
    const perSlot = new Uint32Array(lengths.length);
    const lists: [number, Int32Array, Float64Array][] = [];
    for (const [term, slots, frequencies] of terms) {
      this.postings.set(term, TermPostings.of(slots, frequencies));
      lists.push([term, slots, frequencies]);
      for (const slot of slots) perSlot[slot] = (perSlot[slot] as number) + 1;
    }
    for (let slot = 0; slot < lengths.length; slot++) {
      const length = lengths[slot] as number;
      if (!(length > 0)) continue;
      this.documents += 1;
      this.totalLength += length;
      this.slotTerms[slot] = new Uint32Array(perSlot[slot] as number);
      this.slotHoldings[slot] = new Uint16Array(perSlot[slot] as number);
    }
    perSlot.fill(0);
    for (const [term, slots, frequencies] of lists) {
      for (const [i, slot] of slots.entries()) {
        const at = perSlot[slot] as number;
        (this.slotTerms[slot] as Uint32Array)[at] = term;
        (this.slotHoldings[slot] as Uint16Array)[at] = holdingUnits(frequencies[i] as number);
        perSlot[slot] = at + 1;
      }
    }
  }

  private ensureCapacity(slots: number): void {
    if (slots <= this.lengths.length) return;
    const size = Math.max(slots, this.lengths.length * 2);
    const grow = <T extends Float64Array | Uint32Array>(array: T, next: T): T => {
      next.set(array);
      return next;
    };
    this.lengths = grow(this.lengths, new Float64Array(size));
    this.epochs = grow(this.epochs, new Uint32Array(size));
    this.scores = new Float64Array(size);
    this.norms = new Float64Array(size);
    this.state = new Uint8Array(size);
    this.ownTerms = new Uint16Array(size);
    this.touched = new Int32Array(size);
    this.matched = new Int32Array(size);
    this.matchedCount = 0;
  }
}

/** Scratch of `mergeFrequencies`: the merged terms and their frequencies, negated when only neighbours hold them. */
const merged = { terms: new Uint32Array(256), signed: new Float64Array(256) };

/**
 * A slot's terms as the index holds them, into `merged` (returns how many): each term with a positive frequency,
 * own or its neighbours', summed (own first), negated when the slot's own text does not hold it. Both lists are
 * ascending (SparseValues), so one merge pass does it, without a Map entry per term (a tenth of an add's CPU).
 */
function mergeFrequencies(terms: SparseValues | undefined, contextTerms: SparseValues | undefined): number {
  const own = terms ?? EMPTY;
  const context = contextTerms ?? EMPTY;
  if (!ascending(own) || !ascending(context)) return mergeUnordered(own, context);
  const capacity = own.indices.length + context.indices.length;
  if (merged.terms.length < capacity) {
    merged.terms = new Uint32Array(capacity);
    merged.signed = new Float64Array(capacity);
  }
  let count = 0;
  let i = 0;
  let j = 0;
  while (i < own.indices.length || j < context.indices.length) {
    const a = i < own.indices.length ? (own.indices[i] as number) : Number.POSITIVE_INFINITY;
    const b = j < context.indices.length ? (context.indices[j] as number) : Number.POSITIVE_INFINITY;
    const term = Math.min(a, b);
    const mine = a === term ? (own.values[i++] as number) : 0;
    const lent = b === term ? (context.values[j++] as number) : 0;
    if (mine > 0) merged.signed[count] = lent > 0 ? mine + lent : mine;
    else if (lent > 0) merged.signed[count] = -lent;
    else continue;
    merged.terms[count++] = term;
  }
  return count;
}

const EMPTY: SparseValues = { indices: [], values: [] };

function ascending({ indices }: SparseValues): boolean {
  for (let i = 1; i < indices.length; i++) if (!((indices[i] as number) > (indices[i - 1] as number))) return false;
  return true;
}

/** The same for lists that break the ascending order (a writer outside chunkTerms): repeated terms are summed. */
function mergeUnordered(own: SparseValues, context: SparseValues): number {
  const byTerm = new Map<number, { frequency: number; own: boolean }>();
  const gather = (sparse: SparseValues, isOwn: boolean) => {
    for (let i = 0; i < sparse.indices.length; i++) {
      const frequency = sparse.values[i] as number;
      if (!(frequency > 0)) continue;
      const term = sparse.indices[i] as number;
      const entry = byTerm.get(term);
      if (entry) entry.frequency += frequency;
      else byTerm.set(term, { frequency, own: isOwn });
    }
  };
  gather(own, true);
  gather(context, false);
  if (merged.terms.length < byTerm.size) {
    merged.terms = new Uint32Array(byTerm.size);
    merged.signed = new Float64Array(byTerm.size);
  }
  let count = 0;
  for (const [term, { frequency, own: isOwn }] of byTerm) {
    merged.terms[count] = term;
    merged.signed[count++] = isOwn ? frequency : -frequency;
  }
  return count;
}

/** `start` plus each positive value of `sparse`, added one at a time. */
function positiveSum(sparse: SparseValues | undefined, start: number): number {
  let sum = start;
  if (sparse) for (const value of sparse.values) if (value > 0) sum += value;
  return sum;
}
