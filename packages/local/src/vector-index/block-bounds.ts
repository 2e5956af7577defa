/**
 * What the sweep (lexical-sweep.ts) knows of each block in its ring that bounds its owners' scores, gathered as the
 * block's postings are read: per term the most one slot owns, stores as context and lends; per block the most own
 * postings of one slot and its owners' shortest length. A query that keeps only its best matches (lexical-score.ts)
 * skips the blocks whose bound cannot reach them, without reading their owners' links.
 */
export class BlockBounds {
  /** Per ring block, three runs of `terms` values: most own count, most stored context, most lent occurrences. */
  most = new Float64Array(0);
  /** Own postings of the slot at each ring position so far. */
  readonly ownCounts: Int32Array;
  /** A block's bound per term (`LexicalSweep.boundBlock`): the most frequency any of its owners can hold. */
  frequencies = new Float64Array(0);
  /** A block's bound per term of what a slot of it borrows: its largest sum of link weights × the most lent near. */
  lentNear = new Float64Array(0);
  private readonly mostOwnTerms: Int32Array;
  private readonly shortest: Float64Array;
  private terms = 0;

  constructor(
    ringSlots: number,
    private readonly ringBlocks: number,
  ) {
    this.ownCounts = new Int32Array(ringSlots);
    this.mostOwnTerms = new Int32Array(ringBlocks);
    this.shortest = new Float64Array(ringBlocks);
  }

  /** Before a query of `terms` terms. */
  reset(terms: number): void {
    this.terms = terms;
    if (this.frequencies.length < terms) {
      this.frequencies = new Float64Array(terms);
      this.lentNear = new Float64Array(terms);
      this.most = new Float64Array(this.ringBlocks * terms * 3);
    }
  }

  /** A ring block now holds another block: nothing gathered of it yet. */
  clear(ringBlock: number): void {
    this.most.fill(0, ringBlock * this.terms * 3, (ringBlock + 1) * this.terms * 3);
    this.mostOwnTerms[ringBlock] = 0;
    this.shortest[ringBlock] = Number.POSITIVE_INFINITY;
  }

  /** A slot of the block owns a term (its first): its length. */
  owned(ringBlock: number, length: number): void {
    if (length < (this.shortest[ringBlock] as number)) this.shortest[ringBlock] = length;
  }

  /** A slot of the block has `count` own postings so far. */
  ownTerms(ringBlock: number, count: number): void {
    if (count > (this.mostOwnTerms[ringBlock] as number)) this.mostOwnTerms[ringBlock] = count;
  }

  /** Own postings of `slot` (in the ring). */
  ownCountOf(slot: number): number {
    return this.ownCounts[slot & (this.ownCounts.length - 1)] as number;
  }

  mostOwnTermsOf(block: number): number {
    return this.mostOwnTerms[block & (this.ringBlocks - 1)] as number;
  }

  shortestOf(block: number): number {
    return this.shortest[block & (this.ringBlocks - 1)] as number;
  }
}
