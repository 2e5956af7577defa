import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createBatchQueue } from './capture-queue.ts';
import { createBackgroundWork } from './deps.ts';

const timing = { quietMs: 50, maxDelayMs: 1_000, maxItems: 10, maxBatchSize: 1_000, maxHeldSize: 100 };

/** A queue over a store that records each batch and finishes it when the test says so (or at once). */
function setup({ manual = false, maxItems = timing.maxItems } = {}) {
  const background = createBackgroundWork((error) => {
    throw error;
  });
  const batches: number[][] = [];
  const finishers: (() => void)[] = [];
  const queue = createBatchQueue<number>({
    background,
    sizeOf: () => 1,
    timing: { ...timing, maxItems },
    store: async (batch) => {
      batches.push(batch);
      if (manual) await new Promise<void>((finish) => finishers.push(finish));
    },
  });
  const finishBatch = async () => {
    finishers.shift()?.();
    await vi.advanceTimersByTimeAsync(0);
  };
  return { background, batches, queue, finishBatch };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('the capture queue: batches off the requests’ path', () => {
  it('holds items while they keep coming, then stores them in one batch once the proxy is quiet', async () => {
    const { batches, queue } = setup();
    for (let i = 0; i < 5; i++) {
      queue.accept(i);
      await vi.advanceTimersByTimeAsync(20);
    }
    expect(batches).toEqual([]);
    await vi.advanceTimersByTimeAsync(50);
    expect(batches).toEqual([[0, 1, 2, 3, 4]]);
  });

  it('does not hold the first item longer than maxDelayMs however busy the proxy stays', async () => {
    const { batches, queue } = setup({ maxItems: 100 });
    // One item every 40 ms: never quiet for 50 ms.
    for (let i = 0; i < 30; i++) {
      queue.accept(i);
      await vi.advanceTimersByTimeAsync(40);
    }
    // The first batch started at 1,000 ms with the 25 items accepted by then (0 ms … 960 ms).
    expect(batches[0]).toEqual(Array.from({ length: 25 }, (_, i) => i));
  });

  it('stores large items a few at a time: a batch holds at most maxBatchSize (one item alone when larger)', async () => {
    const background = createBackgroundWork((error) => {
      throw error;
    });
    const batches: number[][] = [];
    // Items are their own size: 300 + 300 + 300 fill a batch of 1,000; 5,000 goes alone.
    const queue = createBatchQueue<number>({
      background,
      sizeOf: (item) => item,
      timing: { ...timing, maxHeldSize: 1_000_000 },
      store: async (batch) => {
        batches.push(batch);
      },
    });
    for (const item of [300, 300, 300, 300, 5_000, 10, 20]) queue.accept(item);
    await background.idle();
    expect(batches).toEqual([[300, 300, 300], [300], [5_000], [10, 20]]);
  });

  it('loses nothing of a burst: batches of at most maxItems, one at a time, in order', async () => {
    const { batches, queue, finishBatch, background } = setup({ manual: true });
    for (let i = 0; i < 35; i++) queue.accept(i);
    await vi.advanceTimersByTimeAsync(0);
    expect(batches).toEqual([[0, 1, 2, 3, 4, 5, 6, 7, 8, 9]]);
    queue.accept(35);
    await finishBatch();
    expect(batches).toHaveLength(2);
    for (let i = 0; i < 3; i++) await finishBatch();
    const idle = background.idle();
    await finishBatch();
    await idle;
    expect(batches.map((batch) => batch.length)).toEqual([10, 10, 10, 6]);
    expect(batches.flat()).toEqual(Array.from({ length: 36 }, (_, i) => i));
  });

  it('background.idle() stores what is held at once and resolves when it is stored', async () => {
    const { batches, queue, background } = setup();
    queue.accept(1);
    queue.accept(2);
    await background.idle();
    expect(batches).toEqual([[1, 2]]);
  });

  it('room() waits while maxHeldSize is held or being stored, and resumes once a batch is stored', async () => {
    const { queue, finishBatch } = setup({ manual: true });
    const settled = async (promise: Promise<void>) => {
      let done = false;
      void promise.then(() => {
        done = true;
      });
      await vi.advanceTimersByTimeAsync(0);
      return done;
    };
    expect(await settled(queue.room())).toBe(true);
    for (let i = 0; i < 100; i++) queue.accept(i);
    const room = queue.room();
    expect(await settled(room)).toBe(false);
    await finishBatch();
    expect(await settled(room)).toBe(true);
  });
});
