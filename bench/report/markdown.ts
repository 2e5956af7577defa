import type { Machine } from '../lib/machine.ts';
import type { AreaResult, Figure } from '../lib/results.ts';
import type { Plot } from './plots.ts';

/** One run of the benchmark: what results.json holds and RESULTS.md shows. */
export interface BenchReport {
  mode: 'full' | 'quick';
  startedAt: string;
  seconds: number;
  machine: Machine;
  /** The warm-up before the first area (bench/lib/warm-up.ts); absent in reports of runs without one. */
  warmUp?: { seconds: number; requests: number };
  areas: AreaResult[];
}

const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

function valueText(figure: Figure): string {
  if (!Number.isFinite(figure.value)) return 'n/a';
  return figure.unit === 'ratio' ? `${figure.value}` : `${figure.value} ${figure.unit}`;
}

function budgetText(figure: Figure): string {
  const { budget } = figure;
  if (!budget) return '';
  const unit = figure.unit === 'ratio' ? '' : ` ${figure.unit}`;
  return `${budget.op === '<=' ? '≤' : '≥'} ${budget.value}${unit} (${budget.issue})`;
}

function passText(figure: Figure): string {
  if (figure.pass === undefined) return '';
  return figure.pass ? 'pass' : '**FAIL**';
}

function areaTable(area: AreaResult): string[] {
  const detail = area.figures.some((figure) => figure.note);
  const head = ['figure', 'value', 'budget', 'pass', 'peer', ...(detail ? ['detail'] : [])];
  const align = ['---', '---:', '---', '---', '---', ...(detail ? ['---'] : [])];
  const rows = area.figures.map((figure) =>
    [
      figure.name,
      valueText(figure),
      budgetText(figure),
      passText(figure),
      figure.peer ?? '',
      ...(detail ? [figure.note ?? ''] : []),
    ].map(cell),
  );
  return [head, align, ...rows].map((row) => `| ${row.join(' | ')} |`);
}

function minutes(seconds: number): string {
  const whole = Math.round(seconds);
  return `${Math.floor(whole / 60)} min ${whole % 60} s`;
}

/**
 * RESULTS.md: the machine, a summary of the budgets, then one table per area with its notes and plot; when a figure
 * is over budget, `overBudget` (bench/OVER-BUDGET.md: profiles and what would close each gap, written by hand because
 * no run can measure it) ends the file.
 */
export function renderMarkdown(report: BenchReport, plots: readonly Plot[], overBudget?: string): string {
  const { machine } = report;
  const judged = report.areas.flatMap((area) => area.figures.filter((figure) => figure.pass !== undefined));
  const failed = report.areas.flatMap((area) =>
    area.figures.filter((figure) => figure.pass === false).map((figure) => `${area.title}: ${figure.name}`),
  );
  const skipped = report.areas.filter((area) => area.skipped);
  const lines = [
    '# memgate benchmark results',
    '',
    `Measured by \`npm run bench${report.mode === 'quick' ? ' -- --quick' : ''}\` (${report.mode} run, ${minutes(report.seconds)}) on ${report.startedAt.replace('T', ' ').slice(0, 16)} UTC, commit \`${machine.commit}\`${machine.dirty ? ' with uncommitted changes' : ''}. What each figure means and how it is measured: [README.md](README.md). Raw numbers: [results.json](results.json).`,
    '',
    '| machine | |',
    '|---|---|',
    `| CPU | ${cell(machine.cpu)}, ${machine.cores} cores |`,
    `| memory | ${machine.memoryGiB} GiB |`,
    `| OS | ${cell(machine.os)} |`,
    `| Node.js | ${machine.node} |`,
    `| Java (DynamoDB Local) | ${machine.java} |`,
    `| load average at start | ${machine.loadAverage} (other work on the machine makes timings noisy: compare figures of one run) |`,
    ...(report.warmUp
      ? [
          `| warm-up before the first area | ${report.warmUp.requests} requests in ${report.warmUp.seconds} s (proxy with filtering and context, and searches, in the 1k tenant: DynamoDB Local's JVM and the server reach their steady state) |`,
        ]
      : []),
    '',
    '## Summary',
    '',
    `${judged.length} figures have a budget: ${judged.length - failed.length} pass, ${failed.length} fail.` +
      (skipped.length > 0 ? ` Not measured: ${skipped.map((area) => area.title).join(', ')}.` : ''),
    ...(failed.length > 0 ? ['', ...failed.map((name) => `- over budget: ${name}`)] : []),
  ];
  for (const area of report.areas) {
    lines.push('', `## ${area.title}`, '');
    if (area.skipped) {
      lines.push(`Not measured in this run: ${area.skipped}`);
      continue;
    }
    lines.push(...areaTable(area));
    if (area.notes.length > 0) lines.push('', ...area.notes.map((note) => `- ${note}`));
    for (const plot of plots.filter((candidate) => candidate.areaId === area.id)) {
      lines.push('', `![${plot.alt}](${plot.file})`);
    }
  }
  if (failed.length > 0 && overBudget?.trim()) {
    lines.push('', '## Over budget: where the time goes and what would close it', '', overBudget.trim());
  }
  return `${lines.join('\n')}\n`;
}
