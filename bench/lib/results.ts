/** A budget from the issues: the figure must be at most (`<=`) or at least (`>=`) `value`. */
export interface Budget {
  op: '<=' | '>=';
  value: number;
  /** Which issue sets it, e.g. "#4". */
  issue: string;
}

export interface Figure {
  name: string;
  value: number;
  unit: string;
  budget?: Budget;
  /** Undefined when the figure has no budget. */
  pass?: boolean;
  /** The peer's figure for the same measurement, as text (e.g. "portkey 0.9 ms"). */
  peer?: string;
  note?: string;
}

export interface AreaResult {
  id: string;
  title: string;
  figures: Figure[];
  /** How this area was measured in this run (sample counts, sizes), shown under its table. */
  notes: string[];
  /** Raw series kept for plots and results.json. */
  series?: Record<string, number[] | Record<string, number>>;
  /** Set when the area could not run; its figures are then missing, not invented. */
  skipped?: string;
}

/** A figure, judged against its budget when it has one (a figure that could not be computed never passes). */
export function figure(
  name: string,
  value: number,
  unit: string,
  extra: { budget?: Budget; peer?: string; note?: string } = {},
): Figure {
  const { budget } = extra;
  if (!budget) return { name, value, unit, ...extra };
  const within = budget.op === '<=' ? value <= budget.value : value >= budget.value;
  return { name, value, unit, ...extra, pass: Number.isFinite(value) && within };
}

export const atMost = (value: number, issue: string): Budget => ({ op: '<=', value, issue });
export const atLeast = (value: number, issue: string): Budget => ({ op: '>=', value, issue });
