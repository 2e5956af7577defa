import { existsSync, readFileSync } from 'node:fs';

/**
 * Issue #13's "no regressions in `npm run bench`" targets, read from the last committed bench run (bench/results.json)
 * so EVAL.md shows them beside the recall targets. The eval cannot measure them itself: they need the bench's
 * corpora and Lambda bundles, and a quiet machine.
 */
export interface BenchTarget {
  name: string;
  value: number;
  unit: string;
  /** The figure passes when `value op limit`. */
  op: '<=' | '>=';
  limit: number;
}

export interface BenchTargets {
  commit: string;
  startedAt: string;
  targets: BenchTarget[];
}

interface Figure {
  name: string;
  value: number;
  unit: string;
}

interface BenchResults {
  startedAt: string;
  machine: { commit: string };
  areas: { id: string; figures: Figure[] }[];
}

/** Where each target's figure is in results.json, and its limit. Add throughput must not fall below the figure issue #17 opened with. */
const WANTED: readonly (Omit<BenchTarget, 'value' | 'unit'> & { area: string; figure: string })[] = [
  { name: 'search p50 at 10k chunks', area: 'search', figure: 'p50, 10k chunks', op: '<=', limit: 5 },
  {
    name: 'add throughput, add / raw BatchWrite (0.39 when issue #17 opened)',
    area: 'add',
    figure: 'add over HTTP / raw BatchWrite of the same items',
    op: '>=',
    limit: 0.39,
  },
  {
    name: 'context-search cold start median',
    area: 'lambda',
    figure: 'context-search: cold start median',
    op: '<=',
    limit: 150,
  },
];

/** The targets as the bench run in `file` measured them; undefined when there is no run or it lacks a figure. */
export function readBenchTargets(file: string): BenchTargets | undefined {
  if (!existsSync(file)) return undefined;
  const results = JSON.parse(readFileSync(file, 'utf8')) as BenchResults;
  const targets: BenchTarget[] = [];
  for (const { area, figure, ...target } of WANTED) {
    const found = results.areas.find((a) => a.id === area)?.figures.find((f) => f.name === figure);
    if (!found) return undefined;
    targets.push({ ...target, value: found.value, unit: found.unit });
  }
  return { commit: results.machine.commit, startedAt: results.startedAt, targets };
}

export function benchTargetLines(bench: BenchTargets): string[] {
  const unit = (target: BenchTarget) => (target.unit === 'ratio' ? '' : ` ${target.unit}`);
  return [
    `From the last full \`npm run bench\` (bench/RESULTS.md, commit ${bench.commit}, ${bench.startedAt.slice(0, 10)}); ` +
      'bench/OVER-BUDGET.md says where the time of a figure over its limit goes.',
    '',
    ...bench.targets.map((target) => {
      const pass = target.op === '<=' ? target.value <= target.limit : target.value >= target.limit;
      const op = target.op === '<=' ? '≤' : '≥';
      return (
        `- ${target.name} ${op} ${target.limit}${unit(target)}: ${target.value}${unit(target)}, ` +
        (pass ? 'met' : '**not met**')
      );
    }),
  ];
}
