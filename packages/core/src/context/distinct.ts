import type { ContextStore, SearchHit, SearchInput } from './service.ts';
import { MAX_TOP_K } from './store/search.ts';

/**
 * Word-set Jaccard at or above which two passages say the same thing. Chosen on examples (bench/EVAL.md has none:
 * search is unchanged): five answers a model gave to one question, reworded each time, are 0.61-0.89 apart pairwise
 * (three answers to another: 0.69-0.76); a returns-policy document against those answers, and other exchanges on the
 * same topic (another question, or a different answer to the same one), at most 0.42; and 87,571 pairs of the turns
 * of one LoCoMo conversation (locomo-dev.json), all distinct statements, at most 0.45. Word sets separate these better
 * than word pairs (0.35 vs 0.33) or triples (0.22 vs 0.29). 0.55 leaves 0.10 above the distinct and 0.06 below the
 * reworded; erring high keeps a distinct passage rather than skipping it.
 */
export const NEAR_DUPLICATE_JACCARD = 0.55;

/**
 * Passages of fewer distinct words are never taken for near-duplicates: between short ones one word is most of the
 * difference ("The launch is planned for March." and "… for May." share 5 of 7), and that word is the fact.
 */
export const MIN_COMPARED_WORDS = 10;

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** Letters and digits (ASCII, and anything past it that is not a space or punctuation block): a word's characters. */
function isWordChar(code: number): boolean {
  if (code < 0x80) return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
  return code !== 0xa0 && !(code >= 0x2000 && code <= 0x206f) && !(code >= 0x3000 && code <= 0x303f);
}

/**
 * The set of a text's words (ASCII lower-cased), as sorted distinct 32-bit hashes: no string is made per word, so
 * comparing a request's few passages costs a pass over their characters and one small array each.
 */
export function wordSet(text: string): Uint32Array {
  const hashes = new Uint32Array((text.length >> 1) + 1);
  let count = 0;
  let hash = FNV_OFFSET;
  let inWord = false;
  for (let at = 0; at <= text.length; at++) {
    const code = at < text.length ? text.charCodeAt(at) : 32;
    if (isWordChar(code)) {
      hash = Math.imul(hash ^ (code >= 65 && code <= 90 ? code + 32 : code), FNV_PRIME);
      inWord = true;
    } else if (inWord) {
      hashes[count++] = hash >>> 0;
      hash = FNV_OFFSET;
      inWord = false;
    }
  }
  const sorted = hashes.subarray(0, count).sort();
  let distinct = 0;
  for (let at = 0; at < sorted.length; at++) {
    if (at === 0 || sorted[at] !== sorted[at - 1]) sorted[distinct++] = sorted[at] as number;
  }
  return sorted.slice(0, distinct);
}

/** Jaccard similarity of two word sets (wordSet): shared words over all words. */
export function jaccard(a: Uint32Array, b: Uint32Array): number {
  if (a.length === 0 || b.length === 0) return 0;
  let shared = 0;
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as number;
    const y = b[j] as number;
    if (x === y) {
      shared++;
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return shared / (a.length + b.length - shared);
}

/**
 * Up to `limit` hits in their order, a hit skipped when its text is a near-duplicate of one already taken (the same
 * answer stored again in other words; both of at least MIN_COMPARED_WORDS words), so that the slots hold different
 * information. `skipped` counts those.
 */
export function distinctHits<T extends Pick<SearchHit, 'contextData'>>(
  hits: readonly T[],
  limit: number,
): { chosen: T[]; skipped: number } {
  const chosen: T[] = [];
  const sets: Uint32Array[] = [];
  let skipped = 0;
  for (const hit of hits) {
    if (chosen.length >= limit) break;
    const words = wordSet(hit.contextData);
    // Jaccard is at most the smaller set over the larger: sets that far apart in size are never compared.
    const near =
      words.length >= MIN_COMPARED_WORDS &&
      sets.some(
        (taken) =>
          taken.length >= MIN_COMPARED_WORDS &&
          Math.min(taken.length, words.length) >= NEAR_DUPLICATE_JACCARD * Math.max(taken.length, words.length) &&
          jaccard(taken, words) >= NEAR_DUPLICATE_JACCARD,
      );
    if (near) {
      skipped++;
      continue;
    }
    chosen.push(hit);
    sets.push(words);
  }
  return { chosen, skipped };
}

/** The search is asked for this many times the hits injected, so that near-duplicates can be passed over. */
const WIDER = 2;

/**
 * The context the proxy and the chat inject: the best `input.top_k` hits of one search asked for twice as many (at
 * most MAX_TOP_K), near-duplicates of a better one skipped. One search, whatever the tenant holds: a tenant full of
 * near-duplicates (a model answering every question alike, each exchange captured) gets fewer, different passages,
 * not more searches. What is stored, and what search and MCP answer, are unchanged: they show the store.
 */
export async function searchDistinct(
  store: Pick<ContextStore, 'search'>,
  principal: Parameters<ContextStore['search']>[0],
  input: SearchInput & { top_k: number },
): Promise<SearchHit[]> {
  const hits = await store.search(principal, { ...input, top_k: Math.min(MAX_TOP_K, input.top_k * WIDER) });
  return distinctHits(hits, input.top_k).chosen;
}
