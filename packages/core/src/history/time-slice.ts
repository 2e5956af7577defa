import { setImmediate } from 'node:timers';

/**
 * Long CPU work done in many small steps (counting tokens piece by piece) gives the event loop back every `sliceMs`,
 * so a request with megabytes to count delays other requests by about one slice (DESIGN.md §4, "Size and time").
 */
export interface TimeSlice {
  /** True once the current slice is used up: the caller should `await giveWay()`. */
  due(): boolean;
  /** Lets other work run, then starts a new slice. */
  giveWay(): Promise<void>;
}

/** Lets timers, I/O and other requests run before the caller goes on. */
export function giveWay(): Promise<void> {
  return new Promise<void>((resolve) => setImmediate(resolve));
}

export function createTimeSlice(sliceMs = 10, now = () => performance.now()): TimeSlice {
  let started = now();
  return {
    due: () => now() - started > sliceMs,
    async giveWay() {
      await giveWay();
      started = now();
    },
  };
}

/** Runs `steps` to their end at once, for a caller with no event loop to give back to (or too little work). */
export function runToEnd<T>(steps: Generator<void, T>): T {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/** Runs `steps` to their end, giving the event loop back whenever `slice` is used up between two steps. */
export async function runInSlices<T>(steps: Generator<void, T>, slice: TimeSlice): Promise<T> {
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    if (slice.due()) await slice.giveWay();
  }
}

/** `list.map(fn)`, giving the event loop back whenever `slice` is used up between two elements. */
export async function mapInSlices<T, U>(
  list: readonly T[],
  fn: (element: T, index: number) => U,
  slice: TimeSlice = createTimeSlice(),
): Promise<U[]> {
  const mapped: U[] = [];
  for (let index = 0; index < list.length; index++) {
    mapped.push(fn(list[index] as T, index));
    if (slice.due()) await slice.giveWay();
  }
  return mapped;
}
