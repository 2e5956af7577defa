import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { round } from '../lib/stats.ts';
import { type BenchReport, renderMarkdown } from './markdown.ts';
import { plotsOf } from './plots.ts';

/** results.json keeps every sample, rounded to a microsecond-ish precision so the file stays readable. */
function compact(value: unknown): unknown {
  if (typeof value === 'number') return round(value);
  if (Array.isArray(value)) return value.map(compact);
  if (value && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, compact(inner)]));
  }
  return value;
}

/** The hand-written analysis of the budgets not met, kept beside RESULTS.md so a new run does not erase it. */
export const OVER_BUDGET_FILE = 'OVER-BUDGET.md';

/** Writes RESULTS.md, results.json and the plots into `dir`; returns the paths written. */
export function writeReport(dir: string, report: BenchReport): string[] {
  const plots = plotsOf(report.areas);
  const written = [join(dir, 'RESULTS.md'), join(dir, 'results.json')];
  const analysis = join(dir, OVER_BUDGET_FILE);
  const overBudget = existsSync(analysis) ? readFileSync(analysis, 'utf8') : undefined;
  writeFileSync(written[0] as string, renderMarkdown(report, plots, overBudget));
  // Arrays of numbers (the raw samples) on one line each, so the file stays a few hundred lines long.
  const json = JSON.stringify(compact(report), null, 2).replace(
    /\[\s+(-?[\d.e+-]+(?:,\s+-?[\d.e+-]+)*)\s+\]/g,
    (_, inner: string) => `[${inner.replace(/\s+/g, ' ')}]`,
  );
  writeFileSync(written[1] as string, `${json}\n`);
  for (const plot of plots) {
    const path = join(dir, plot.file);
    writeFileSync(path, plot.svg);
    written.push(path);
  }
  return written;
}
