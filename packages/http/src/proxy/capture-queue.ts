import type { BackgroundWork } from './deps.ts';

/** When a batch of held items starts, and how much may be held before the proxy makes new requests wait. */
export interface BatchTiming {
  /** Once no item has arrived for this long, the held items start (a lone caller's exchange is stored soon). */
  quietMs: number;
  /** The longest the first held item waits, however busy the proxy is. */
  maxDelayMs: number;
  /** This many held items start at once. */
  maxItems: number;
  /**
   * A batch holds items of at most this size together (`sizeOf`; at least one item): what one add processes at once
   * (its chunks, terms, vectors and rows) grows with its text, so a few huge exchanges are stored a few at a time.
   */
  maxBatchSize: number;
  /** Held items' size (`sizeOf`) above which `room()` waits: the queue's memory is bounded. */
  maxHeldSize: number;
}

export const DEFAULT_BATCH_TIMING: BatchTiming = {
  quietMs: 50,
  maxDelayMs: 1_000,
  maxItems: 100,
  maxBatchSize: 256 * 1024,
  maxHeldSize: 32 * 1024 * 1024,
};

export interface BatchQueue<T> {
  /** Holds `item` for the next batch; never waits and never refuses. */
  accept(item: T): void;
  /** Resolves once the held items are under the size limit (at once, unless a flood outpaces the store). */
  room(): Promise<void>;
}

/**
 * Holds items (captured exchanges) and hands them to `store` in batches through `background`, off the requests'
 * path: one write of many instead of one per request, started when the proxy goes quiet or the first item has
 * waited `maxDelayMs`. One batch runs at a time. `background.idle()` starts whatever is held at once (the Lambda
 * handler before the invocation ends, the local server on shutdown, tests), so nothing accepted is left behind.
 */
export function createBatchQueue<T>({
  background,
  store,
  sizeOf,
  timing = DEFAULT_BATCH_TIMING,
}: {
  background: BackgroundWork;
  /** Stores one batch; its failures are its own to retry and report. */
  store: (batch: T[]) => Promise<void>;
  sizeOf: (item: T) => number;
  timing?: BatchTiming;
}): BatchQueue<T> {
  let held: { item: T; size: number; at: number }[] = [];
  /** Of the items held and of the batch being stored. */
  let heldSize = 0;
  /** Of the items held only (not yet in a batch). */
  let waitingSize = 0;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  const waiting: (() => void)[] = [];

  function release(): void {
    clearTimeout(timer);
    timer = undefined;
    if (running || held.length === 0) return;
    let count = 0;
    for (let size = 0; count < held.length && count < timing.maxItems; count++) {
      size += (held[count] as { size: number }).size;
      if (count > 0 && size > timing.maxBatchSize) break;
    }
    const batch = held.slice(0, count);
    held = held.slice(count);
    waitingSize -= batch.reduce((sum, entry) => sum + entry.size, 0);
    running = true;
    background.run(async function storeBatch() {
      try {
        await store(batch.map((entry) => entry.item));
      } finally {
        running = false;
        heldSize -= batch.reduce((sum, entry) => sum + entry.size, 0);
        if (heldSize < timing.maxHeldSize) for (const resume of waiting.splice(0)) resume();
        // Items that arrived meanwhile: the next batch at once when they fill it or have waited long enough.
        if (held.length > 0) schedule();
      }
    });
  }

  function schedule(): void {
    if (running || held.length === 0) return;
    const waited = performance.now() - (held[0] as { at: number }).at;
    if (held.length >= timing.maxItems || waitingSize >= timing.maxBatchSize || waited >= timing.maxDelayMs) {
      release();
      return;
    }
    clearTimeout(timer);
    timer = setTimeout(release, Math.min(timing.quietMs, timing.maxDelayMs - waited));
    // Never what keeps a process alive: shutdown and Lambda drain through background.idle().
    timer.unref();
  }

  background.holdBack(release);
  return {
    accept(item) {
      const size = sizeOf(item);
      held.push({ item, size, at: performance.now() });
      heldSize += size;
      waitingSize += size;
      schedule();
    },
    room() {
      if (heldSize < timing.maxHeldSize) return Promise.resolve();
      return new Promise<void>((resume) => {
        waiting.push(resume);
        release();
      });
    },
  };
}

export type { BackgroundWork };
