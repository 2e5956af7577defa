import { inverseDocumentFrequency, type SparseValues } from '@memgate/core';
import { FrequencyTable } from './frequency-table.ts';
import { type LexicalMatches, LexicalScorer, type SlotFilter } from './lexical-score.ts';
import { BORROWS, ownCode, type SlotChain, SlotChains, type SnapshotChains } from './slot-chains.ts';
import { merged, mergeFrequencies, positiveSum } from './slot-frequencies.ts';
import { EPOCH_MASK, holdingUnits, type Liveness, MAX_SLOTS, TermPostings } from './term-postings.ts';
import { TermWalk, type WalkContext } from './term-walk.ts';

/** What a slot holds: its own terms and its neighbours' (VectorItem.contextTerms). */
export interface SlotTerms {
  terms?: SparseValues | undefined;
  contextTerms?: SparseValues | undefined;
}

export type { LexicalMatches, SlotFilter } from './lexical-score.ts';

/** Dead postings the namespace may carry in lists no query has recounted, beyond as many as are live. */
const SWEEP_SLACK = 1 << 16;

/**
 * The lexical half of one namespace: postings (term → slots with their frequency, typed arrays, see
 * term-postings.ts) and the statistics BM25 needs (document count, total length, each term's document frequency,
 * holdingUnits), exact whenever a query reads them, so a deleted text never matches and the statistics are the
 * tenant's own. A slot's frequency of a term is its own count plus its neighbours' weighted count (contextTerms),
 * negated when the term is only its neighbours' (it then cannot make the slot match); its length is the sum of both.
 * A slot written with its chain (VectorItem.chain) stores only its own counts and borrows its neighbours' from their
 * postings at query time (term-walk.ts, slot-chains.ts): 73% of the postings at 100k chunks were neighbours' terms.
 *
 * Removing a slot is O(1): its epoch is bumped, which kills its postings where they lie, and the lists are not
 * told (the slot's term ids are not kept: at 100k chunks they were 200 MB). A list's live count and document
 * frequency are recounted the first time a query reads the term after any removal, and all lists are swept when
 * dead postings outnumber live ones, so dead ones cost memory for a while, never a wrong score.
 */
export class LexicalPostings {
  private readonly postings = new Map<number, TermPostings>();
  private readonly table = new FrequencyTable();
  private lengths = new Float64Array(1024);
  /** Bumped when a slot's postings are removed: older postings of the slot are dead (term-postings.ts). */
  private epochs = new Uint8Array(1024);
  /** Postings each counted slot wrote, so a removal knows how many it killed. */
  private slotPostings = new Uint32Array(1024);
  /** Removals so far: a list counted at an older value may hold postings that died since. */
  private removals = 0;
  private livePostings = 0;
  /** Postings killed since the last sweep (some may already be compacted away by a recount). */
  private deadPostings = 0;
  private documents = 0;
  private totalLength = 0;
  private readonly chains = new SlotChains();
  private readonly walk = new TermWalk();
  private readonly scorer = new LexicalScorer();

  /**
   * Counts a slot's terms. Without `chain` its postings hold each merged frequency (own plus neighbours', negated
   * when only theirs, mergeFrequencies). With one (SPLIT) they hold its own counts, coded with what it lends, and its
   * neighbours' only when it does not borrow them from their postings at query time (chain.ts checked that they add
   * up to its contextTerms bit for bit); `unlent` are the own terms it lends to none (one id per occurrence).
   */
  add(slot: number, { terms, contextTerms }: SlotTerms, chain?: SlotChain, unlent?: readonly number[]): void {
    const count = mergeFrequencies(terms, contextTerms);
    if (count === 0) return;
    if (slot >= MAX_SLOTS) throw new Error(`a namespace holds at most ${MAX_SLOTS} vectors`);
    this.ensureCapacity(slot + 1);
    const epoch = this.epochs[slot] as number;
    const { terms: ids, signed } = merged;
    for (let i = 0; i < count; i++) {
      const posting = this.listOf(ids[i] as number);
      posting.heldUnits += holdingUnits(signed[i] as number);
      if (!chain) posting.append(slot, epoch, signed[i] as number, this.table);
    }
    let written = chain ? 0 : count;
    if (chain) {
      this.chains.set(slot, chain, this.epochs);
      written += this.appendSparse(slot, terms, unlent ?? []);
      if (!chain.borrows) written += this.appendSparse(slot, contextTerms, undefined);
    }
    this.slotPostings[slot] = written;
    this.livePostings += written;
    // Summed as the terms come (own, then neighbours'), so a slot's length is the same bits after a restart.
    const length = positiveSum(contextTerms, positiveSum(terms, 0));
    this.lengths[slot] = length;
    this.documents += 1;
    this.totalLength += length;
  }

  /** A SPLIT slot's own counts (`unlent` given: coded with them) or, without, its stored context (negated). */
  private appendSparse(slot: number, sparse: SparseValues | undefined, unlent: readonly number[] | undefined): number {
    if (!sparse) return 0;
    const epoch = this.epochs[slot] as number;
    let written = 0;
    sparse.indices.forEach((term, i) => {
      const value = sparse.values[i] as number;
      if (!(value > 0)) return;
      const code = unlent ? ownCode(value, unlent.filter((id) => id === term).length) : -value;
      this.listOf(term).append(slot, epoch, code, this.table);
      written++;
    });
    return written;
  }

  /** Live postings (what the lists hold, less what removals killed): the namespace's lexical memory, 6 bytes each. */
  get postingCount(): number {
    return this.livePostings;
  }

  /** Whether a chain with these weights can be written (slot-chains.ts codes at most 256 distinct weights). */
  canChain(weights: readonly number[]): boolean {
    return this.chains.canCode(weights);
  }

  private listOf(term: number): TermPostings {
    let posting = this.postings.get(term);
    if (!posting) {
      posting = new TermPostings(this.removals);
      this.postings.set(term, posting);
    }
    return posting;
  }

  /**
   * Before `slots` are removed: a live slot outside them that borrows from one of them gets its neighbours' terms
   * stored as they are now (term-walk's sums, negative postings) and borrows no more, so its scores stay what its
   * contextTerms made them when it was written, as when they were stored. One pass over every list, only when a
   * removal breaks a chain (a document deleted from an add of several, a chunk replaced alone).
   */
  detach(slots: readonly number[]): void {
    const { chains, epochs, lengths } = this;
    const removed = new Set(slots);
    const borrowers = new Set<number>();
    for (const slot of slots) {
      if (!((lengths[slot] as number) > 0)) continue;
      for (const borrower of chains.borrowersOf(slot, epochs, lengths))
        if (!removed.has(borrower)) borrowers.add(borrower);
    }
    if (borrowers.size === 0) return;
    this.walk.storeBorrowed(this.postings.values(), this.walkContext(), borrowers, (slot) => {
      this.slotPostings[slot] = (this.slotPostings[slot] as number) + 1;
      this.livePostings += 1;
    });
    for (const slot of borrowers) chains.kinds[slot] = (chains.kinds[slot] as number) & ~BORROWS;
  }

  remove(slot: number): void {
    const length = this.lengths[slot] as number;
    if (!(length > 0)) return; // never counted
    this.documents -= 1;
    this.totalLength -= length;
    this.lengths[slot] = 0;
    this.chains.clear(slot, this.epochs);
    this.removals += 1;
    const killed = this.slotPostings[slot] as number;
    this.slotPostings[slot] = 0;
    this.livePostings -= killed;
    this.deadPostings += killed;
    const epoch = ((this.epochs[slot] as number) + 1) & EPOCH_MASK;
    // Before an epoch comes round again, no posting of the slot may be left (an uncounted slot's are all dead).
    if (epoch === 0 || this.deadPostings > this.livePostings + SWEEP_SLACK) this.sweep();
    this.epochs[slot] = epoch;
  }

  /** Compacts every list that may hold dead postings (and drops lists left empty); statistics are recounted on read. */
  sweep(): void {
    const liveness = this.liveness();
    for (const [term, posting] of this.postings) {
      if (posting.countedAt === this.removals && posting.size === posting.live) continue;
      posting.recount(liveness, true);
      if (posting.live === 0) this.postings.delete(term);
    }
    this.deadPostings = 0;
  }

  /**
   * Lexical match of every slot that holds at least one query term of its own and passes `accepts`: the BM25+
   * score divided by its ceiling for this query (every query term matched infinitely often), times the share of the
   * query's terms its own text holds (ownTermsFactor), so it lies in [0, 1].
   * A query term the namespace has never seen counts in the ceiling at the highest inverse document frequency,
   * so a question whose main words appear nowhere scores low everywhere. With `keep`, the matches also tell the
   * `keep`-th best score (`floor`).
   */
  score(query: SparseValues, accepts: SlotFilter, keep?: number): LexicalMatches {
    if (this.documents === 0) return this.scorer.none();
    const weighted: [TermPostings, number][] = [];
    let ceiling = 0;
    let queryTerms = 0;
    query.indices.forEach((term, i) => {
      const count = query.values[i] as number;
      if (!(count > 0)) return;
      queryTerms += 1;
      const posting = this.counted(term);
      const idf = inverseDocumentFrequency(this.documents, posting?.documentFrequency ?? 0);
      ceiling += count * idf;
      if (posting) weighted.push([posting, count * idf]);
    });
    if (!(ceiling > 0)) return this.scorer.none();
    const shares = weighted.map(([posting, weight]): [TermPostings, number] => [posting, weight / ceiling]);
    const averageLength = this.totalLength / this.documents || 1;
    return this.scorer.score({ shares, queryTerms, averageLength, accepts, keep }, this.walkContext());
  }

  /**
   * A term's list with exact statistics (recounted if a removal came since: its live postings, and what every live
   * slot holds of it, own or neighbours'), or undefined when no slot holds it.
   */
  private counted(term: number): TermPostings | undefined {
    const posting = this.postings.get(term);
    if (!posting || posting.countedAt === this.removals) return posting;
    posting.recount(this.liveness(), false);
    posting.countedAt = this.removals;
    if (posting.live === 0) {
      this.postings.delete(term);
      return undefined;
    }
    const walk = this.walk;
    walk.walk(posting, this.walkContext());
    let units = 0;
    for (let i = 0; i < walk.count; i++) units += holdingUnits(walk.frequencies[i] as number);
    posting.heldUnits = units;
    return posting;
  }

  private liveness(): Liveness {
    return this.walkContext();
  }

  private walkContext(): WalkContext {
    return { epochs: this.epochs, lengths: this.lengths, chains: this.chains, table: this.table };
  }

  /** Terms with a live posting, after a sweep (what a snapshot stores: call before `terms`). */
  liveTermCount(): number {
    this.sweep();
    return this.postings.size;
  }

  /** Every distinct frequency, by code (a snapshot's table: its codes are the postings' codes). */
  frequencies(): Float64Array {
    return this.table.values.subarray(0, this.table.size);
  }

  /**
   * Live postings per term, each list in slot order: codes into `frequencies()`, or exact frequencies; and what its
   * holders hold (recounted first). Call `liveTermCount` first: no list it counted is dropped here.
   */
  *terms(): Generator<
    [term: number, slots: Int32Array<ArrayBuffer>, frequencies: Uint16Array | Float64Array, heldUnits: number]
  > {
    const liveness = this.liveness();
    for (const [term, posting] of this.postings) {
      this.counted(term);
      yield [term, ...posting.liveInSlotOrder(liveness), posting.heldUnits];
    }
  }

  /** The length of every slot below `slotCount` (0: not counted). */
  lengthsUpTo(slotCount: number): Float64Array {
    const lengths = new Float64Array(slotCount);
    lengths.set(this.lengths.subarray(0, Math.min(slotCount, this.lengths.length)));
    return lengths;
  }

  /** The chains of every slot below `slotCount`, as a snapshot stores them (SlotChains.snapshot). */
  chainsUpTo(slotCount: number): SnapshotChains {
    return this.chains.snapshot(slotCount, this.epochs, this.lengths);
  }

  /**
   * Loads a snapshot into an empty instance, in three steps so a reader can give the event loop back between terms:
   * the slot lengths and the frequency table (empty for a file of the first version), then each term's postings
   * (`restoreTerm`), then the chains (`restoreChains`, none before version 3), then the statistics (`endRestore`),
   * summed in slot order, as adding the slots one by one in that order would.
   */
  startRestore(lengths: Float64Array, frequencies: Float64Array): void {
    this.ensureCapacity(lengths.length);
    this.lengths.set(lengths);
    for (const [code, frequency] of frequencies.entries()) {
      if (this.table.codeOf(frequency) !== code) throw new Error('lexical snapshot repeats a frequency');
    }
  }

  /** One term's postings (codes into the frequency table, or exact frequencies) with what they hold. */
  restoreTerm(
    term: number,
    slots: Int32Array<ArrayBuffer>,
    held: Uint16Array | Float64Array,
    heldUnits: number | undefined,
  ): void {
    if (held instanceof Uint16Array && held.some((code) => code >= this.table.size)) {
      throw new Error('lexical snapshot has a frequency code beyond its table');
    }
    const perSlot = this.slotPostings;
    for (const slot of slots) perSlot[slot] = (perSlot[slot] as number) + 1;
    this.postings.set(term, TermPostings.of(slots, held, this.table, heldUnits)); // takes `slots` over
    this.livePostings += slots.length;
  }

  /** The chains of slots `from` up to `to` of a snapshot of `slotCount` slots (version 3), after the terms. */
  restoreChains(chains: SnapshotChains, slotCount: number, from: number, to: number): void {
    this.chains.restore(chains, slotCount, this.epochs, from, to);
  }

  /** The statistics of the snapshot's `slotCount` slots, once every term and chain is restored. */
  endRestore(slotCount: number): void {
    const { lengths } = this;
    for (let slot = 0; slot < slotCount; slot++) {
      const length = lengths[slot] as number;
      if (!(length > 0)) continue;
      this.documents += 1;
      this.totalLength += length;
    }
  }

  private ensureCapacity(slots: number): void {
    if (slots <= this.lengths.length) return;
    const size = Math.max(slots, this.lengths.length * 2);
    const grow = <T extends Float64Array | Uint32Array | Uint8Array>(array: T, next: T): T => {
      next.set(array);
      return next;
    };
    this.lengths = grow(this.lengths, new Float64Array(size));
    this.epochs = grow(this.epochs, new Uint8Array(size));
    this.slotPostings = grow(this.slotPostings, new Uint32Array(size));
    this.chains.ensureCapacity(size);
    this.walk.ensureCapacity(size);
    this.scorer.ensureCapacity(size);
  }
}
