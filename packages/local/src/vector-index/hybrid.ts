import type { VectorMatch, VectorMetadata, VectorQuery } from '@memgate/core';
import { BestFirst } from './best-first.ts';
import { cosineBounds } from './cosine.ts';
import type { LexicalMatches } from './lexical.ts';
import { ANY, copy, filterTest, searchDense } from './search.ts';
import { speakerFactors, UNATTRIBUTED } from './speakers.ts';
import type { NamespaceStore } from './store.ts';

/**
 * Best-first matches by the port's hybrid score, (1 − w) · cosine + w · lexical (lexical.ts), exact over the union
 * of the dense top `topK` and every filtered slot holding a query term: a slot in neither has no lexical match and
 * a cosine no higher than the dense top's last, so it cannot enter the top. Lexical candidates are taken in
 * falling lexical order and stop as soon as even the dense top's last cosine could not lift one into the top, so
 * a common term does not cost a cosine per slot that holds it. Without terms or weight: the dense search alone.
 * Speaker attribution (speakers.ts) scales some scores down; when it leaves the top's last under what a slot
 * outside the dense top could score, a dense top 4 times deeper is fused, until none could.
 * A namespace without a graph (store.ts: the lexical embedder's) takes the lexical candidates alone, the best
 * `LEXICAL_CANDIDATES` by lexical match at most, each one's cosine bounded by 1, as long as at least `topK` match:
 * a slot with no lexical match would enter only with a cosine above the top's last fused score / (1 − w), which
 * the lexical embedder's vectors of texts sharing no query term do not reach in practice
 * (bench/dense-contribution.ts: the exhaustive top 10 in every query at 10k and 100k chunks, where the graph
 * missed one in 29 of 300 at 10k). Fewer lexical matches, a top whose last a slot without one could beat, in a
 * namespace small enough to scan (`SMALL_SCAN`): the exact dense top joins them, as the graph's would.
 */
export function searchNamespace(store: NamespaceStore, query: VectorQuery): VectorMatch[] {
  const weight = query.lexicalWeight ?? 0;
  if (!(weight >= 0 && weight <= 1)) throw new Error(`lexicalWeight must be from 0 to 1, got ${weight}`);
  if (!query.terms || query.terms.indices.length === 0 || weight === 0) return searchDense(store, query);
  const topK = Math.min(Math.floor(query.topK), store.size);
  const accepts = filterTest(store, query.filter);
  if (!accepts || !(topK > 0)) return searchDense(store, query);
  // Before the query's own match: `score` reuses its result arrays.
  const attribution = speakerFactors(store, query.speakers);
  const limit = Math.max(LEXICAL_CANDIDATES, 4 * topK);
  // Without a graph, fusion takes at most the best `limit` lexical candidates and looks at one more: the match
  // tells the score of the last of those (`floor`), under which fusion need not look.
  const keep = store.graph ? undefined : limit + 1;
  const lexical = store.lexical.score(query.terms, accepts === ANY ? undefined : accepts, keep);
  if (!store.graph) {
    const fusion: Fusion = { weight, topK, dense: [], denseFloor: 1, lexical, attribution, limit };
    const found = fuse(store, query, fusion);
    // Exact when every lexical candidate that could reach the top was scored and no slot without a lexical match
    // could (its score is at most 1 − w); else exact below SMALL_SCAN, approximate (the best candidates) above.
    const exact = !fusion.limited && (found.at(-1)?.value ?? 0) >= 1 - weight;
    if (found.length >= topK && (exact || !cheapToScan(store, query))) return matchesOf(store, found);
  }
  let top = searchDense(store, query);
  for (let depth = topK; ; ) {
    // A slot outside the dense top has a cosine of at most the top's last.
    const denseFloor = top.length >= depth ? (top.at(-1)?.score ?? 0) : 0;
    const found = fuse(store, query, { weight, topK, dense: top, denseFloor, lexical, attribution });
    const last = found.at(-1)?.value ?? 0;
    if (attribution === UNATTRIBUTED || denseFloor === 0 || found.length < topK || last >= (1 - weight) * denseFloor) {
      return matchesOf(store, found);
    }
    depth *= 4;
    top = searchDense(store, { ...query, topK: depth });
  }
}

/** Whether scanning every vector exactly costs at most `SMALL_SCAN` multiply-adds (a conversation's turns do). */
function cheapToScan(store: NamespaceStore, query: VectorQuery): boolean {
  let nonZero = 0;
  for (let i = 0; i < query.vector.length; i++) if (query.vector[i] !== 0) nonZero++;
  return store.size * nonZero <= SMALL_SCAN;
}

function matchesOf(store: NamespaceStore, found: Fused[]): VectorMatch[] {
  return found.map(({ slot, value }) => {
    const record = store.slots[slot] as { id: string; metadata: VectorMetadata };
    return { id: record.id, score: Math.min(1, Math.max(0, value)), metadata: copy(record.metadata) };
  });
}

interface Fusion {
  weight: number;
  topK: number;
  dense: VectorMatch[];
  denseFloor: number;
  lexical: LexicalMatches;
  attribution: (slot: number) => number;
  /** Lexical candidates scored at most (beyond the dense top), best lexical first; none: all that could reach. */
  limit?: number;
  /** Set by `fuse`: the limit left some candidate unscored that could still have reached the top. */
  limited?: boolean;
}

/**
 * The best `topK` fused scores over the dense top and the lexical matches that could reach them, best first. Scores
 * come as intervals from the cosine's bounds (cosine.ts: exact for float32 vectors); a decision an interval leaves
 * open makes the entries that could change it exact first (`settle`), so every decision, and the top, are those of
 * exact scores, to the bit.
 */
function fuse(store: NamespaceStore, query: VectorQuery, fusion: Fusion): Fused[] {
  const { weight, topK, dense, denseFloor, attribution } = fusion;
  const { count, scores: lexical } = fusion.lexical;
  const { slots, count: looked } = candidatesOf(fusion);
  // Fused scores in the order they were computed (dense top first): ties keep that order when ranked.
  const fused = fusing;
  fused.clear();
  const chosen = store.marks;
  try {
    for (const match of dense) {
      const slot = store.idToSlot.get(match.id) as number;
      chosen[slot] = 1;
      const value = attribution(slot) * ((1 - weight) * match.score + weight * (lexical[slot] as number));
      fused.push(slot, value, value);
    }
    const best = new TopScores(topK, fused);
    const cosine = cosineBounds(store, query.vector);
    const fusedOf = (slot: number, cos: number) =>
      attribution(slot) * ((1 - weight) * cos + weight * (lexical[slot] as number));
    const score = (slot: number) => {
      chosen[slot] = 1;
      cosine.bound(slot);
      const value = fusedOf(slot, cosine.low);
      const high = fusedOf(slot, cosine.high);
      fused.push(slot, value, high);
      best.offer(value, high);
    };
    /** Makes exact every entry that could be at or above the top's last; returns the top's exact last. */
    const settle = () => {
      const floor = best.floor;
      const { values, highs } = fused;
      for (let i = 0; i < fused.count; i++) {
        if ((highs[i] as number) >= floor && values[i] !== highs[i]) {
          values[i] = highs[i] = fusedOf(fused.slots[i] as number, cosine.exact(fused.slots[i] as number));
        }
      }
      best.reset(fused);
      return best.floor;
    };
    // The best lexical matches first (they set a floor), then only those whose bound can still reach it, best first.
    for (const slot of bestByLexical(slots, looked, lexical, chosen, topK)) score(slot);
    // From the floor's lower bound: it may open more than the exact floor would, never fewer.
    const reach = (best.floor - (1 - weight) * denseFloor) / weight;
    const open: number[] = [];
    for (let i = 0; i < looked; i++) {
      const slot = slots[i] as number;
      if (chosen[slot] === 0 && (lexical[slot] as number) >= reach) open.push(slot);
    }
    const bestFirst = new BestFirst(open, lexical);
    let left = (fusion.limit ?? Number.POSITIVE_INFINITY) - Math.min(topK, count);
    for (let slot = bestFirst.next(); slot >= 0; slot = bestFirst.next()) {
      const bound = weight * (lexical[slot] as number) + (1 - weight) * denseFloor;
      if (bound < best.floor || (bound < best.highFloor && bound < settle())) break;
      if (left-- <= 0) {
        fusion.limited = true;
        break;
      }
      score(slot);
    }
    // The entries left inexact are below `topK` exact ones, and so is any under the top's exact last: only those at
    // or above it can be ranked into the top (all of them when fewer than `topK` were scored).
    const last = settle();
    const ranked: Fused[] = [];
    for (let i = 0; i < fused.count; i++) {
      const value = fused.values[i] as number;
      if (value >= last) ranked.push({ slot: fused.slots[i] as number, value, high: fused.highs[i] as number });
    }
    return ranked.sort((a, b) => b.value - a.value).slice(0, topK);
  } finally {
    for (let i = 0; i < fused.count; i++) chosen[fused.slots[i] as number] = 0;
  }
}

/**
 * The entries fusion scores, in the order it scores them: slot and fused score's bounds, in arrays reused from
 * search to search (fusion runs to its end synchronously), where an object per entry was most of what it allocated.
 */
class FusedScores {
  slots = new Int32Array(64);
  values = new Float64Array(64);
  highs = new Float64Array(64);
  count = 0;

  clear(): void {
    this.count = 0;
  }

  push(slot: number, value: number, high: number): void {
    if (this.count === this.slots.length) {
      const slots = new Int32Array(2 * this.count);
      slots.set(this.slots);
      this.slots = slots;
      const values = new Float64Array(2 * this.count);
      values.set(this.values);
      this.values = values;
      const highs = new Float64Array(2 * this.count);
      highs.set(this.highs);
      this.highs = highs;
    }
    this.slots[this.count] = slot;
    this.values[this.count] = value;
    this.highs[this.count] = high;
    this.count++;
  }
}

const fusing = new FusedScores();

/**
 * The lexical matches fusion looks at, in slot order: with a `limit`, only those scoring at least the match's
 * `floor` (the (`limit` + 1)-th best, asked only without a graph, where there is no dense top), as fusion takes
 * candidates best first, equal ones in slot order, and stops after the first `limit` + 1: every one it could take
 * is kept, in the same order, and fewer are sorted. Without a limit, all of them.
 */
function candidatesOf({ lexical, limit }: Fusion): { slots: Int32Array; count: number } {
  const { slots, count, scores, floor } = lexical;
  if (limit === undefined || floor === Number.NEGATIVE_INFINITY) return { slots, count };
  let kept = 0;
  const narrowed = new Int32Array(Math.min(count, 4 * (limit + 1)));
  let into = narrowed;
  for (let i = 0; i < count; i++) {
    const slot = slots[i] as number;
    if ((scores[slot] as number) < floor) continue;
    if (kept === into.length) {
      const wider = new Int32Array(2 * into.length);
      wider.set(into);
      into = wider;
    }
    into[kept++] = slot;
  }
  return { slots: into, count: kept };
}

/**
 * Lexical candidates a search without a graph scores at most (4 × top_k when more): the best by lexical match.
 * With the lexical weight at 0.8 a cosine adds at most 0.2, so a candidate further down the lexical order rarely
 * reaches the top; scoring every one that could (bounding its cosine by 1) cost ~1,700 cosines a query at 10k
 * chunks and ~15,000 at 100k (28 ms), for the same top 10 (bench/dense-contribution.ts).
 */
const LEXICAL_CANDIDATES = 100;
/**
 * A namespace without a graph is searched exactly (the exact dense top fused as a graph's would be) when that costs
 * at most this many multiply-adds (~0.3 ms): a few thousand vectors for the lexical embedder's short queries, ~90
 * non-zero dimensions (cosine.ts). LoCoMo's conversations are such tenants: the eval's figures stay those of an
 * exhaustive scoring.
 */
const SMALL_SCAN = 250_000;

interface Fused {
  slot: number;
  /** The fused score, or its lower bound while `high` is above it (exact once they are equal). */
  value: number;
  high: number;
}

/** The `limit` unchosen matched slots with the highest lexical match, best first (ties: the earlier match first). */
function bestByLexical(
  slots: Int32Array,
  count: number,
  lexical: Float64Array,
  chosen: Uint8Array,
  limit: number,
): number[] {
  const kept: number[] = [];
  let lowest = Number.NEGATIVE_INFINITY; // the last kept value once `limit` are kept
  for (let i = 0; i < count; i++) {
    const slot = slots[i] as number;
    if (chosen[slot] !== 0) continue;
    const value = lexical[slot] as number;
    if (kept.length >= limit && value <= lowest) continue;
    let at = kept.length;
    while (at > 0 && (lexical[kept[at - 1] as number] as number) < value) at--;
    // In place of splice, which returns a new (empty) array each time.
    kept.push(slot);
    for (let i = kept.length - 1; i > at; i--) kept[i] = kept[i - 1] as number;
    kept[at] = slot;
    if (kept.length > limit) kept.pop();
    if (kept.length >= limit) lowest = lexical[kept[kept.length - 1] as number] as number;
  }
  return kept;
}

/**
 * The `size` highest lower bounds and the `size` highest upper bounds of the scores seen: `floor` and `highFloor` are
 * the lowest of each once there are `size` (else −∞), so the top's exact last lies between them. Held in two fixed
 * arrays, highest first: `reset` runs at every settle, and sorting copies of every entry's scores there made most
 * of what fusion allocated.
 */
class TopScores {
  private readonly lows: Float64Array;
  private readonly highs: Float64Array;
  private held = 0;
  private highsHeld = 0;
  constructor(
    private readonly size: number,
    initial: FusedScores,
  ) {
    this.lows = new Float64Array(size);
    this.highs = new Float64Array(size);
    this.reset(initial);
  }
  get floor(): number {
    return this.held >= this.size ? (this.lows[this.size - 1] as number) : Number.NEGATIVE_INFINITY;
  }
  get highFloor(): number {
    return this.highsHeld >= this.size ? (this.highs[this.size - 1] as number) : Number.NEGATIVE_INFINITY;
  }
  reset(entries: FusedScores): void {
    this.held = this.highsHeld = 0;
    for (let i = 0; i < entries.count; i++) this.offer(entries.values[i] as number, entries.highs[i] as number);
  }
  offer(value: number, high: number): void {
    this.held = insert(this.lows, this.held, value);
    this.highsHeld = insert(this.highs, this.highsHeld, high);
  }
}

/** Puts `score` into `scores` (its first `held` highest first) if it is among the highest; returns how many are held. */
function insert(scores: Float64Array, held: number, score: number): number {
  const size = scores.length;
  if (held >= size && score <= (scores[size - 1] as number)) return held;
  let at = 0;
  while (at < held && (scores[at] as number) >= score) at++;
  const kept = Math.min(held + 1, size);
  for (let i = kept - 1; i > at; i--) scores[i] = scores[i - 1] as number;
  scores[at] = score;
  return kept;
}
