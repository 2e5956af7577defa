import { describe, expect, it } from 'vitest';
import { createMessageTermsCache, MAX_CACHED_HISTORY, slicedChunkTerms, withLength } from './message-terms.ts';
import { HISTORY_NEIGHBOUR_WINDOW } from './relevance.ts';

const window = HISTORY_NEIGHBOUR_WINDOW;
const turn = (index: number) => `turn ${index}: the invoice for project${index % 5} was paid on day ${index}`;
const uncached = async (texts: string[]) => (await slicedChunkTerms(texts, window)).map(withLength);

describe('the message terms cache', () => {
  it("reads a resent history's terms once: a message whose window is unchanged is not read again", async () => {
    const cache = createMessageTermsCache();
    const first = Array.from({ length: 12 }, (_, index) => turn(index));
    const before = await cache.termsOf(first, window);
    // The next turn: the same history with two more messages.
    const next = [...first, turn(12), turn(13)];
    const after = await cache.termsOf(next, window);
    // Messages whose window (4 on each side) holds none of the new ones are the very entries read before.
    for (let index = 0; index < 12 - window.span; index += 1) expect(after[index]).toBe(before[index]);
    // Those near the end now have new neighbours: read again, as one pass over the whole history reads them.
    expect(after).toEqual(await uncached(next));
    expect(before).toEqual(await uncached(first));
  });

  it('gives the terms of one pass, whatever was cached, at both ends, for repeated texts and past its bound', async () => {
    const cache = createMessageTermsCache({ maxBytes: 4_000 }); // a few entries: most are dropped as others come
    const pool = Array.from({ length: 30 }, (_, index) => turn(index % 9)); // repeated texts at other places
    for (let start = 0; start < 20; start += 3) {
      for (const length of [1, 2, 5, 10]) {
        const texts = pool.slice(start, start + length);
        expect(await cache.termsOf(texts, window)).toEqual(await uncached(texts));
      }
    }
  });

  it('keys entries by the window too', async () => {
    const cache = createMessageTermsCache();
    const texts = [turn(1), turn(2), turn(3)];
    const none = { span: 0, before: 0, after: 0 };
    await cache.termsOf(texts, window);
    expect(await cache.termsOf(texts, none)).toEqual((await slicedChunkTerms(texts, none)).map(withLength));
  });

  it('reads a history longer than it caches as one pass, keeping nothing of it', async () => {
    const cache = createMessageTermsCache();
    const texts = Array.from({ length: MAX_CACHED_HISTORY + 1 }, (_, index) => turn(index));
    const first = await cache.termsOf(texts, window);
    expect(first).toEqual(await uncached(texts));
    const again = await cache.termsOf(texts.slice(0, 10), window);
    expect(again[0]).not.toBe(first[0]);
  });
});
