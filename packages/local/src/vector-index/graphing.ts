import type { NamespaceStore } from './store.ts';

export interface GraphingOptions {
  /**
   * Vectors a namespace may hold outside its graph (searches scan them exactly: ~0.6 µs each at 512 dimensions). A
   * write that leaves more waits until the background insertion is back under it.
   */
  maxUngraphed: number;
  /**
   * Insert in the background (the default). When false, vectors enter the graph only when a write leaves more than
   * `maxUngraphed` outside it, at once and down to that bound (tests use it to keep vectors outside the graph).
   */
  background: boolean;
}

/** Vectors per usearch call: ~2-4 ms of work at 10k vectors, so a slice ends close to its budget. */
const BATCH = 8;
/** Event-loop time one background slice may take before it yields to I/O (requests) with `setImmediate`. */
const SLICE_MS = 4;
/**
 * Quiet time after the last write before background insertion starts: a burst of writes is not slowed by the
 * graph work it leaves (until it reaches `maxUngraphed`); the graph catches up once the writes pause.
 */
const QUIET_MS = 25;

/**
 * Moves the vectors writes left outside the namespaces' graphs (graph.ts) into them, off the writes' path: once
 * writes pause for `QUIET_MS`, in slices of a few milliseconds, each in its own turn of the event loop, so requests
 * keep being served in between. A write's vectors are searchable before this runs (searches scan them exactly); it
 * only bounds how many wait, so searches stay fast and writes cannot outrun the graph: a write that leaves more
 * than `maxUngraphed` waits (back-pressure), and while one waits, slices run back to back without the quiet time.
 * Everything here runs on the event loop, so each slice is atomic with respect to requests.
 */
export class BackgroundGraphing {
  /** Namespaces with vectors outside their graph, in the order they are served (round robin). */
  private readonly queue = new Set<NamespaceStore>();
  private readonly waiting: { store: NamespaceStore; resume: () => void }[] = [];
  private readonly idleWaiters: (() => void)[] = [];
  private slicing: NodeJS.Immediate | undefined;
  private quietTimer: NodeJS.Timeout | undefined;
  private lastWrite = 0;
  private stopped = false;

  constructor(private readonly options: GraphingOptions) {}

  /**
   * After a write to `store`: schedules its waiting vectors and resolves once at most `maxUngraphed` wait (at once
   * when they already are, or when insertion stops).
   */
  async afterWrite(store: NamespaceStore): Promise<void> {
    const { maxUngraphed, background } = this.options;
    if (this.stopped || store.ungraphedCount === 0) return;
    if (!background) {
      const excess = store.ungraphedCount - maxUngraphed;
      if (excess > 0) store.insertIntoGraph(excess);
      return;
    }
    this.lastWrite = performance.now();
    this.queue.add(store);
    if (store.ungraphedCount <= maxUngraphed) {
      this.schedule();
      return;
    }
    const resumed = new Promise<void>((resume) => this.waiting.push({ store, resume }));
    this.schedule();
    await resumed;
  }

  /** Resolves when no namespace has vectors waiting (or insertion stopped). */
  idle(): Promise<void> {
    if (this.queue.size === 0 || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Forgets `store` (its namespace unloaded): what still waits stays outside the graph, as its snapshot has it. */
  forget(store: NamespaceStore): void {
    this.queue.delete(store);
    this.release();
  }

  /** Stops inserting and releases every waiter (closing: the snapshot keeps the vectors still outside the graph). */
  stop(): void {
    this.stopped = true;
    if (this.slicing) clearImmediate(this.slicing);
    if (this.quietTimer) clearTimeout(this.quietTimer);
    this.slicing = undefined;
    this.quietTimer = undefined;
    this.queue.clear();
    this.release();
  }

  /** The next slice: at once while a write waits, else once writes have paused for `QUIET_MS`. */
  private schedule(): void {
    if (this.stopped || this.slicing || this.queue.size === 0) return;
    const quietFor = performance.now() - this.lastWrite;
    if (this.waiting.length > 0 || quietFor >= QUIET_MS) {
      if (this.quietTimer) clearTimeout(this.quietTimer);
      this.quietTimer = undefined;
      this.slicing = setImmediate(() => this.slice());
    } else if (!this.quietTimer) {
      this.quietTimer = setTimeout(() => {
        this.quietTimer = undefined;
        this.schedule();
      }, QUIET_MS - quietFor);
    }
  }

  private slice(): void {
    this.slicing = undefined;
    const deadline = performance.now() + SLICE_MS;
    for (const store of [...this.queue]) {
      // A write waiting on this namespace resumes at the bound, not after everything is in (a fast slice could
      // otherwise insert every vector before the write goes on).
      const floor = this.waiting.some((waiter) => waiter.store === store) ? this.options.maxUngraphed : 0;
      while (store.ungraphedCount > floor && performance.now() < deadline) store.insertIntoGraph(BATCH);
      this.queue.delete(store);
      // Still waiting: back at the end of the queue, so one busy namespace does not starve the others.
      if (store.ungraphedCount > 0) this.queue.add(store);
      if (performance.now() >= deadline) break;
    }
    this.release();
    this.schedule();
  }

  /** Resumes the writes whose namespace is back under the bound, and idle waiters when nothing waits. */
  private release(): void {
    const { maxUngraphed } = this.options;
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      const { store, resume } = this.waiting[i] as (typeof this.waiting)[number];
      if (this.stopped || !this.queue.has(store) || store.ungraphedCount <= maxUngraphed) {
        this.waiting.splice(i, 1);
        resume();
      }
    }
    if (this.queue.size === 0 || this.stopped) for (const resolve of this.idleWaiters.splice(0)) resolve();
  }
}
