import { randomUUID } from 'node:crypto';
import type { ExpiringItems } from '@memgate/core';
import { describe, expect, it } from 'vitest';

export interface ExpiringItemsSubject {
  items: ExpiringItems;
  /** Stores a new item that expires at `expiresAt` (ISO) and returns the id `listExpired` gives for it. */
  store(expiresAt: string): Promise<string>;
}

/**
 * The ExpiringItems contract (what the cleanup sweeps), run by every adapter: the DynamoDB session repository, its
 * in-memory double and the cleanup tests' double. Items are written in a far-past window of their own; other
 * tests' items are filtered out.
 */
export function expiringItemsConformance(name: string, factory: () => Promise<ExpiringItemsSubject>): void {
  describe(`ExpiringItems conformance: ${name}`, () => {
    /** Instants in one minute of 2001, a window of the test's own. */
    const window = (minute: number) => (second: number) =>
      `2001-01-01T00:${String(minute).padStart(2, '0')}:${String(second).padStart(2, '0')}.000Z`;

    it('lists the items expired before `before`, oldest expiry first, page by page', async () => {
      const { items, store } = await factory();
      const at = window(10);
      // Stored out of expiry order, with ids out of order too: the order must come from the expiry.
      const third = await store(at(3));
      const first = await store(at(1));
      const second = await store(at(2));
      const live = await store(at(9));
      const mine = new Set([first, second, third, live]);
      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await items.listExpired({ before: at(5), limit: 1, ...(cursor ? { cursor } : {}) });
        expect(page.items.length).toBeLessThanOrEqual(1);
        seen.push(...page.items);
        cursor = page.nextCursor ?? undefined;
      } while (cursor);
      expect(seen.filter((id) => mine.has(id))).toEqual([first, second, third]);
    });

    it('deletes the given items and ignores ids it does not hold', async () => {
      const { items, store } = await factory();
      const at = window(11);
      const gone = await store(at(1));
      const kept = await store(at(2));
      await items.delete([gone, gone, `chat#never-${randomUUID()}`]);
      const left = (await items.listExpired({ before: at(5), limit: 1000 })).items;
      expect(left).toContain(kept);
      expect(left).not.toContain(gone);
    });
  });
}
