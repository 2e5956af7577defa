import type { VectorMatch, VectorMetadata, VectorQuery } from '@memgate/core';
import { BestFirst } from './best-first.ts';
import type { LexicalMatches } from './lexical.ts';
import { ANY, copy, exactScore, filterTest, inverseNorm, searchDense } from './search.ts';
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
 */
export function searchNamespace(store: NamespaceStore, query: VectorQuery): VectorMatch[] {
  const weight = query.lexicalWeight ?? 0;
  if (!(weight >= 0 && weight <= 1)) throw new Error(`lexicalWeight must be from 0 to 1, got ${weight}`);
  const dense = searchDense(store, query);
  if (!query.terms || query.terms.indices.length === 0 || weight === 0) return dense;
  const topK = Math.min(Math.floor(query.topK), store.size);
  const accepts = filterTest(store, query.filter);
  if (!accepts || !(topK > 0)) return dense;
  // Before the query's own match: `score` reuses its result arrays.
  const attribution = speakerFactors(store, query.speakers);
  const lexical = store.lexical.score(query.terms, accepts === ANY ? undefined : accepts);
  let top = dense;
  for (let depth = topK; ; ) {
    // A slot outside the dense top has a cosine of at most the top's last.
    const denseFloor = top.length >= depth ? (top.at(-1)?.score ?? 0) : 0;
    const found = fuse(store, query, { weight, topK, dense: top, denseFloor, lexical, attribution });
    const last = found.at(-1)?.value ?? 0;
    if (attribution === UNATTRIBUTED || denseFloor === 0 || found.length < topK || last >= (1 - weight) * denseFloor) {
      return found.map(({ slot, value }) => {
        const record = store.slots[slot] as { id: string; metadata: VectorMetadata };
        return { id: record.id, score: Math.min(1, Math.max(0, value)), metadata: copy(record.metadata) };
      });
    }
    depth *= 4;
    top = searchDense(store, { ...query, topK: depth });
  }
}

interface Fusion {
  weight: number;
  topK: number;
  dense: VectorMatch[];
  denseFloor: number;
  lexical: LexicalMatches;
  attribution: (slot: number) => number;
}

/** The best `topK` fused scores over the dense top and the lexical matches that could reach them, best first. */
function fuse(store: NamespaceStore, query: VectorQuery, fusion: Fusion): Fused[] {
  const { weight, topK, dense, denseFloor, attribution } = fusion;
  const { slots, count, scores: lexical } = fusion.lexical;
  // Fused scores in the order they were computed (dense top first): ties keep that order when ranked.
  const fused: Fused[] = [];
  const chosen = store.marks;
  for (const match of dense) {
    const slot = store.idToSlot.get(match.id) as number;
    chosen[slot] = 1;
    fused.push({ slot, value: attribution(slot) * ((1 - weight) * match.score + weight * (lexical[slot] as number)) });
  }
  try {
    const best = new TopScores(topK, fused);
    const inverseQuery = inverseNorm(query.vector);
    const score = (slot: number) => {
      chosen[slot] = 1;
      const value =
        attribution(slot) *
        ((1 - weight) * exactScore(store, slot, query.vector, inverseQuery) + weight * (lexical[slot] as number));
      fused.push({ slot, value });
      best.offer(value);
    };
    // The best lexical matches first (they set a floor), then only those whose bound can still reach it, best first.
    for (const slot of bestByLexical(slots, count, lexical, chosen, topK)) score(slot);
    const reach = (best.floor - (1 - weight) * denseFloor) / weight;
    const open: number[] = [];
    for (let i = 0; i < count; i++) {
      const slot = slots[i] as number;
      if (chosen[slot] === 0 && (lexical[slot] as number) >= reach) open.push(slot);
    }
    const bestFirst = new BestFirst(open, lexical);
    for (let slot = bestFirst.next(); slot >= 0; slot = bestFirst.next()) {
      if (weight * (lexical[slot] as number) + (1 - weight) * denseFloor < best.floor) break;
      score(slot);
    }
  } finally {
    for (const { slot } of fused) chosen[slot] = 0;
  }
  return fused.sort((a, b) => b.value - a.value).slice(0, topK);
}

interface Fused {
  slot: number;
  value: number;
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
    kept.splice(at, 0, slot);
    if (kept.length > limit) kept.pop();
    if (kept.length >= limit) lowest = lexical[kept[kept.length - 1] as number] as number;
  }
  return kept;
}

/** The `size` highest scores seen; `floor` is the lowest of them once there are `size` (else −∞). */
class TopScores {
  private readonly scores: number[];
  constructor(
    private readonly size: number,
    initial: readonly Fused[],
  ) {
    this.scores = initial
      .map((entry) => entry.value)
      .sort((a, b) => b - a)
      .slice(0, size);
  }
  get floor(): number {
    return this.scores.length >= this.size ? (this.scores.at(-1) as number) : Number.NEGATIVE_INFINITY;
  }
  offer(score: number): void {
    if (this.scores.length >= this.size && score <= this.floor) return;
    let at = this.scores.findIndex((other) => other < score);
    if (at < 0) at = this.scores.length;
    this.scores.splice(at, 0, score);
    if (this.scores.length > this.size) this.scores.pop();
  }
}
