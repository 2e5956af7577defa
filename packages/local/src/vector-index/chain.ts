import type { SparseValues, VectorItem } from '@memgate/core';
import { MAX_LINKS, type SlotChain } from './slot-chains.ts';
import { MAX_SLOTS } from './term-postings.ts';

/**
 * The SlotChain of each item of one upsert (deduplicated, in order), or undefined: its postings then hold merged
 * frequencies, as without chains. An item is SPLIT when it carries its chain (VectorItem.chain) with whole own
 * counts; it links the neighbours of its chain that are SPLIT items of the same batch (so they can borrow from it);
 * it borrows when every neighbour is one, each names it back, and their own counts, less what they do not lend,
 * summed one occurrence at a time in the chain's order, give its contextTerms bit for bit. Anything else (a
 * neighbour written by another call, a writer whose contextTerms are not its neighbours') stores them, as before.
 */
export function resolveChains(
  items: readonly VectorItem[],
  slots: readonly number[],
  canCode: (weights: readonly number[]) => boolean,
): (SlotChain | undefined)[] {
  const split = new Map<string, { item: VectorItem; slot: number; unlent: Map<number, number> }>();
  items.forEach((item, i) => {
    const unlent = splitUnlent(item, slots[i] as number);
    if (unlent && canCode(item.chain?.weights ?? [])) split.set(item.id, { item, slot: slots[i] as number, unlent });
  });
  return items.map((item) => {
    const chain = item.chain;
    if (!chain || !split.has(item.id)) return undefined;
    const links: number[] = [];
    const weights: number[] = [];
    let complete = true;
    chain.neighbours.forEach((id, k) => {
      const neighbour = split.get(id);
      if (!neighbour) complete = false;
      else {
        links.push(neighbour.slot);
        weights.push(chain.weights[k] as number);
        if (!neighbour.item.chain?.neighbours.includes(item.id)) complete = false;
      }
    });
    const borrows = complete && lentAlike(item, split);
    return { links, weights, borrows };
  });
}

/** An item that can be SPLIT: its own terms' unlent counts (speaker markers); undefined if it cannot. */
function splitUnlent(item: VectorItem, slot: number): Map<number, number> | undefined {
  const chain = item.chain;
  if (!chain || slot >= MAX_SLOTS - 1) return undefined;
  const { neighbours, weights, unlent } = chain;
  if (neighbours.length > MAX_LINKS || weights.length !== neighbours.length) return undefined;
  if (!weights.every((weight) => Number.isFinite(weight) && weight > 0)) return undefined;
  if (new Set(neighbours).size !== neighbours.length || neighbours.includes(item.id)) return undefined;
  const own = item.terms ?? { indices: [], values: [] };
  if (!ascending(own) || (item.contextTerms && !ascending(item.contextTerms))) return undefined;
  if (!own.values.every((value) => !(value > 0) || (Number.isInteger(value) && value < 2 ** 20))) return undefined;
  const counts = new Map<number, number>();
  for (const term of unlent) counts.set(term, (counts.get(term) ?? 0) + 1);
  for (const [term, count] of counts) {
    const at = own.indices.indexOf(term);
    if (at < 0 || !((own.values[at] as number) >= count)) return undefined;
  }
  return counts;
}

/** Scratch of `lentAlike`: the sums of what the neighbours lend, by position in the item's contextTerms. */
let lentSums = new Float64Array(1024);

/**
 * Whether `item`'s neighbours (all SPLIT) lend exactly its contextTerms, summed as chunkTerms sums them: each term's
 * lent occurrences one at a time, neighbour by neighbour in the chain's order. Every list is ascending (splitUnlent),
 * so each neighbour's terms are found in the contextTerms by one merge and summed by position in a typed array (a
 * Map of sums by term cost a third of an upsert's JavaScript).
 */
function lentAlike(
  item: VectorItem,
  split: ReadonlyMap<string, { item: VectorItem; unlent: ReadonlyMap<number, number> }>,
): boolean {
  const chain = item.chain as NonNullable<VectorItem['chain']>;
  const given = item.contextTerms ?? EMPTY;
  const count = given.indices.length;
  if (lentSums.length < count) lentSums = new Float64Array(count);
  const sums = lentSums.fill(0, 0, count);
  for (let k = 0; k < chain.neighbours.length; k++) {
    const { item: neighbour, unlent } = split.get(chain.neighbours[k] as string) as {
      item: VectorItem;
      unlent: ReadonlyMap<number, number>;
    };
    const own = neighbour.terms;
    if (!own) continue;
    const weight = chain.weights[k] as number;
    let at = 0;
    for (let i = 0; i < own.indices.length; i++) {
      const value = own.values[i] as number;
      if (!(value > 0)) continue;
      const term = own.indices[i] as number;
      const lent = value - (unlent.size === 0 ? 0 : (unlent.get(term) ?? 0));
      if (!(lent > 0)) continue;
      while (at < count && (given.indices[at] as number) < term) at++;
      // Lent, but not among its positive contextTerms.
      if (at === count || given.indices[at] !== term || !((given.values[at] as number) > 0)) return false;
      let sum = sums[at] as number;
      for (let r = 0; r < lent; r++) sum += weight;
      sums[at] = sum;
    }
  }
  // Each positive contextTerm is what was lent of it (nothing lent: 0, never a positive value).
  for (let at = 0; at < count; at++) {
    const value = given.values[at] as number;
    if (value > 0 && sums[at] !== value) return false;
  }
  return true;
}

const EMPTY: SparseValues = { indices: [], values: [] };

function ascending({ indices }: SparseValues): boolean {
  for (let i = 1; i < indices.length; i++) if (!((indices[i] as number) > (indices[i - 1] as number))) return false;
  return true;
}
