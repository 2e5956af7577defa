/**
 * The slots holding one metadata value (store.ts's filter postings). A filter that tests many slots asks for a
 * bitmap of them (`test`): a hybrid query's lexical match tests every slot owning a query term, ~8,000-34,000 at
 * 100k chunks, and Set lookups in a 90,000-slot set were a third of the query's CPU. The bitmap is built on first
 * use, kept exact by `add` and `delete` (dropped when a slot lands beyond it, built again on the next use), and only
 * for a set whose bitmap takes at most as many bytes as its own slots: a document's 10 slots keep the Set lookup.
 */
export class SlotSet extends Set<number> {
  private bits: Uint32Array | undefined;

  override add(slot: number): this {
    super.add(slot);
    const bits = this.bits;
    if (bits && slot >>> 5 < bits.length) bits[slot >>> 5] = (bits[slot >>> 5] as number) | (1 << (slot & 31));
    else this.bits = undefined;
    return this;
  }

  override delete(slot: number): boolean {
    const had = super.delete(slot);
    const bits = this.bits;
    if (had && bits && slot >>> 5 < bits.length) bits[slot >>> 5] = (bits[slot >>> 5] as number) & ~(1 << (slot & 31));
    return had;
  }

  override clear(): void {
    super.clear();
    this.bits = undefined;
  }

  /** Membership of a slot, by bitmap when the set is dense enough (see above), else by the Set itself. */
  test(): (slot: number) => boolean {
    const bits = this.bits ?? this.build();
    if (!bits) return (slot) => this.has(slot);
    return (slot) => ((bits[slot >>> 5] as number) & (1 << (slot & 31))) !== 0;
  }

  private build(): Uint32Array | undefined {
    let highest = -1;
    for (const slot of this) if (slot > highest) highest = slot;
    const words = (highest >>> 5) + 1;
    // 4 bytes a word against at least 8 bytes a Set entry (V8 holds more): a sparse set keeps its lookups.
    if (words > 2 * this.size) return undefined;
    const bits = new Uint32Array(words);
    for (const slot of this) bits[slot >>> 5] = (bits[slot >>> 5] as number) | (1 << (slot & 31));
    this.bits = bits;
    return bits;
  }
}
