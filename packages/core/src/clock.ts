/** Time as a dependency, so tests and the cleanup can reason about "older than". */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
