/** Summary of one set of latency samples, in milliseconds. */
export interface Summary {
  n: number;
  p50: number;
  p90: number;
  p99: number;
  min: number;
  max: number;
  mean: number;
}

/** The nearest-rank percentile (p in [0, 1]) of ascending `sorted` samples. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil(p * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1] as number;
}

/** n, percentiles, min, max and mean of `samples` (any order). */
export function summarize(samples: readonly number[]): Summary {
  const sorted = [...samples].sort((a, b) => a - b);
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return {
    n: sorted.length,
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    min: sorted[0] ?? Number.NaN,
    max: sorted[sorted.length - 1] ?? Number.NaN,
    mean: sorted.length === 0 ? Number.NaN : total / sorted.length,
  };
}

/**
 * Added latency of paired, interleaved samples: the percentiles of (through − direct), pair by pair. Pairing
 * cancels slow drifts of the machine (both requests of a pair ran back to back); the difference of the two
 * distributions' percentiles is reported beside it.
 */
export function addedLatency(
  through: readonly number[],
  direct: readonly number[],
): {
  paired: Summary;
  /** p50(through) − p50(direct) and p99(through) − p99(direct). */
  p50Difference: number;
  p99Difference: number;
} {
  const pairs = Math.min(through.length, direct.length);
  const differences = Array.from({ length: pairs }, (_, i) => (through[i] as number) - (direct[i] as number));
  const a = summarize(through);
  const b = summarize(direct);
  return { paired: summarize(differences), p50Difference: a.p50 - b.p50, p99Difference: a.p99 - b.p99 };
}

/** Rounds for display and JSON: 3 significant decimals below 10, 1 above. */
export function round(value: number): number {
  if (!Number.isFinite(value)) return value;
  return Math.abs(value) < 10 ? Math.round(value * 1000) / 1000 : Math.round(value * 10) / 10;
}
