import { collectGarbage } from './vector-index/collect-garbage.ts';

const MIB = 1024 * 1024;

/** What the limit reads of the process: its RSS, and the V8 heap's used bytes (live and garbage not yet collected). */
export interface MemoryReader {
  rss(): number;
  heapUsed(): number;
}

const processMemory: MemoryReader = {
  rss: () => process.memoryUsage.rss(),
  heapUsed: () => process.memoryUsage().heapUsed,
};

export interface MemoryLimitOptions {
  /** RSS above which the server collects (LOCAL_MEMORY_SOFT_LIMIT_MB). */
  limitBytes: number;
  /**
   * Collect only when the heap has grown by at least this share of what was live after the last collection (and
   * 32 MiB): the cost of a full collection grows with the live heap, and a tenant larger than the limit must not
   * make the server collect for nothing.
   */
  minGrowth?: number;
  read?: MemoryReader;
  collect?: () => void;
}

/**
 * A soft limit on the local server's memory. Under a steady load V8 promotes a little of every request's garbage to
 * its old space and lets that space grow to several times what is live before a full collection (none in a minute
 * of the bench's searches), so the server's RSS rises by the load's garbage, not its data. Past the limit, one full
 * collection (~50 ms with a 100k-chunk tenant loaded) when the heap holds enough garbage to be worth it.
 */
export function createMemoryLimit({
  limitBytes,
  minGrowth = 0.25,
  read = processMemory,
  collect = collectGarbage,
}: MemoryLimitOptions) {
  let liveAfterCollecting = 0;
  return {
    /** One look at the process; true when it collected. */
    check(): boolean {
      if (read.rss() <= limitBytes) return false;
      const grown = read.heapUsed() - liveAfterCollecting;
      if (grown < Math.max(32 * MIB, liveAfterCollecting * minGrowth)) return false;
      collect();
      liveAfterCollecting = read.heapUsed();
      return true;
    },
    /** Looks every `intervalMs` until stopped; never what keeps the process alive. */
    watch(intervalMs = 250): () => void {
      const timer = setInterval(() => this.check(), intervalMs);
      timer.unref();
      return () => clearInterval(timer);
    },
  };
}
