import { describe, expect, it } from 'vitest';
import { createMemoryLimit } from './memory-limit.ts';

const MIB = 1024 * 1024;

/** A process whose RSS and heap the test sets; a collection frees the heap down to what is live. */
function fakeProcess(live: number) {
  const state = { rss: 0, heap: live, live, collections: 0 };
  return {
    state,
    read: { rss: () => state.rss, heapUsed: () => state.heap },
    collect: () => {
      state.collections += 1;
      state.rss -= state.heap - state.live;
      state.heap = state.live;
    },
  };
}

describe('createMemoryLimit', () => {
  it('does nothing under the limit, however much garbage the heap holds', () => {
    const fake = fakeProcess(100 * MIB);
    const limit = createMemoryLimit({ limitBytes: 448 * MIB, read: fake.read, collect: fake.collect });
    Object.assign(fake.state, { rss: 440 * MIB, heap: 300 * MIB });
    expect(limit.check()).toBe(false);
    expect(fake.state.collections).toBe(0);
  });

  it('collects once past the limit with garbage worth collecting, and brings RSS back under it', () => {
    const fake = fakeProcess(150 * MIB);
    const limit = createMemoryLimit({ limitBytes: 448 * MIB, read: fake.read, collect: fake.collect });
    Object.assign(fake.state, { rss: 470 * MIB, heap: 250 * MIB });
    expect(limit.check()).toBe(true);
    expect(fake.state.rss).toBe(370 * MIB);
    expect(limit.check()).toBe(false); // under the limit again
  });

  it('does not collect for nothing when the live data alone is over the limit (a large tenant)', () => {
    const fake = fakeProcess(600 * MIB);
    const limit = createMemoryLimit({ limitBytes: 448 * MIB, read: fake.read, collect: fake.collect });
    Object.assign(fake.state, { rss: 800 * MIB, heap: 700 * MIB });
    expect(limit.check()).toBe(true); // the first look cannot know what is live
    expect(fake.state.heap).toBe(600 * MIB);
    // Over the limit still, but only 100 MiB of garbage on 600 live: not yet worth a full collection.
    Object.assign(fake.state, { rss: 800 * MIB, heap: 700 * MIB });
    expect(limit.check()).toBe(false);
    Object.assign(fake.state, { rss: 860 * MIB, heap: 760 * MIB });
    expect(limit.check()).toBe(true); // a quarter of what was live
    expect(fake.state.collections).toBe(2);
  });

  it('frees garbage of the real process past a limit it has already passed', () => {
    let hold: unknown[] | undefined = Array.from({ length: 400_000 }, (_, i) => ({ i, text: `garbage ${i}` }));
    const before = process.memoryUsage().heapUsed;
    hold = undefined;
    const limit = createMemoryLimit({ limitBytes: 1 });
    expect(hold).toBeUndefined();
    expect(limit.check()).toBe(true);
    expect(process.memoryUsage().heapUsed).toBeLessThan(before - 16 * MIB);
  });
});
