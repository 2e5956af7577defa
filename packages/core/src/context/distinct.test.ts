import { describe, expect, it } from 'vitest';
import { distinctHits, jaccard, NEAR_DUPLICATE_JACCARD, searchDistinct, wordSet } from './distinct.ts';
import type { SearchHit, SearchInput } from './service.ts';

const ask = 'User: How many days do I have to return items?\n\nAssistant: ';
const REWORDED = [
  `${ask}You can return most items within 30 days of purchase for a full refund, as long as they are unused.`,
  `${ask}Most items can be returned within 30 days of purchase for a full refund, provided they are unused.`,
  `${ask}Returns are accepted within 30 days of purchase for a full refund, as long as the item is unused.`,
];
const OTHER = `${ask}Thirty days. After that the store may offer an exchange or store credit, but not a refund.`;
const POLICY =
  'Customers may return most items within 30 days of purchase for a full refund. Final-sale items and gift cards cannot be returned; refunds reach the original payment method within 5-7 business days.';

/** The same measure written plainly: sets of lower-cased words. */
function plainJaccard(a: string, b: string): number {
  const words = (text: string) => new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);
  const [x, y] = [words(a), words(b)];
  const shared = [...x].filter((word) => y.has(word)).length;
  return shared / (x.size + y.size - shared);
}

const hit = (contextId: string, contextData: string): SearchHit => ({
  contextId,
  contextData,
  score: 1,
  documentId: contextId,
  fileName: `${contextId}.txt`,
  source: 's',
});

describe('near-duplicate passages', () => {
  it('measures what a plain word-set Jaccard measures, without a string per word', () => {
    const texts = [...REWORDED, OTHER, POLICY, '', 'Ünïcode wörds, CAPS and caps; 42 times 42.'];
    for (const a of texts) {
      for (const b of texts) {
        expect(jaccard(wordSet(a), wordSet(b))).toBeCloseTo(a && b ? plainJaccard(a, b) : 0, 10);
      }
    }
  });

  it('takes reworded answers for one another, and neither another answer nor the document for them', () => {
    for (const a of REWORDED) {
      for (const b of REWORDED) expect(jaccard(wordSet(a), wordSet(b))).toBeGreaterThanOrEqual(NEAR_DUPLICATE_JACCARD);
      expect(jaccard(wordSet(a), wordSet(OTHER))).toBeLessThan(NEAR_DUPLICATE_JACCARD);
      expect(jaccard(wordSet(a), wordSet(POLICY))).toBeLessThan(NEAR_DUPLICATE_JACCARD);
    }
  });

  it('keeps the order, skips near-duplicates of a passage already taken, and fills the slots from further down', () => {
    const hits = [hit('a', REWORDED[0] as string), hit('b', REWORDED[1] as string), hit('c', OTHER)];
    hits.push(hit('d', REWORDED[2] as string), hit('e', POLICY));
    expect(distinctHits(hits, 3)).toEqual({ chosen: [hits[0], hits[2], hits[4]], skipped: 2 });
    expect(distinctHits(hits, 1)).toEqual({ chosen: [hits[0]], skipped: 0 });
  });

  it('never takes short passages for one another: one word is most of their difference, and it is the fact', () => {
    const hits = [hit('a', 'The launch is planned for March.'), hit('b', 'The launch is planned for May.')];
    expect(
      jaccard(wordSet('The launch is planned for March.'), wordSet('The launch is planned for May.')),
    ).toBeGreaterThan(NEAR_DUPLICATE_JACCARD);
    expect(distinctHits(hits, 5)).toEqual({ chosen: hits, skipped: 0 });
  });
});

describe('searchDistinct', () => {
  /** A store whose ranking is `ranked`, recording the top_k of each search. */
  function storeOf(ranked: SearchHit[]) {
    const asked: number[] = [];
    const store = {
      search: async (_principal: unknown, input: SearchInput) => {
        asked.push(input.top_k as number);
        return ranked.slice(0, input.top_k);
      },
    };
    return { store, asked };
  }
  const input = { query: 'q', similarity_threshold: 1, minimum_similarity_threshold: 0, top_k: 3 };
  const principal = { userId: 'u', orgs: [], scopes: new Set<string>() };

  it('asks once for twice as many hits as it injects', async () => {
    const { store, asked } = storeOf([hit('a', REWORDED[0] as string), hit('c', OTHER), hit('e', POLICY)]);
    expect((await searchDistinct(store, principal, input)).map((h) => h.contextId)).toEqual(['a', 'c', 'e']);
    expect(asked).toEqual([6]);
  });

  it('fills the slots near-duplicates took from the extra hits, and injects fewer rather than search again', async () => {
    const copies = Array.from({ length: 4 }, (_, i) => hit(`r${i}`, REWORDED[i % 3] as string));
    const { store, asked } = storeOf([...copies, hit('e', POLICY), hit('c', OTHER)]);
    expect((await searchDistinct(store, principal, input)).map((h) => h.contextId)).toEqual(['r0', 'e', 'c']);
    expect(asked).toEqual([6]);
    // A tenant full of one answer captured again and again: one search all the same, one passage of it injected.
    const endless = storeOf(Array.from({ length: 200 }, (_, i) => hit(`r${i}`, REWORDED[i % 3] as string)));
    expect(await searchDistinct(endless.store, principal, input)).toHaveLength(1);
    expect(endless.asked).toEqual([6]);
  });
});
