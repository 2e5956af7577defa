import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readBenchTargets } from '../../bench/eval/bench-targets.ts';
import { type EvalReport, renderEvalMarkdown } from '../../bench/eval/report.ts';

// EVAL.md shows issue #13's no-regression targets from the committed bench run beside the recall targets.
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function resultsFile(figures: Record<string, { name: string; value: number; unit: string }[]>): string {
  const dir = mkdtempSync(join(tmpdir(), 'memgate-bench-targets-'));
  dirs.push(dir);
  const file = join(dir, 'results.json');
  const areas = Object.entries(figures).map(([id, list]) => ({ id, figures: list }));
  writeFileSync(file, JSON.stringify({ startedAt: '2026-11-24T08:00:00.000Z', machine: { commit: 'abc1234' }, areas }));
  return file;
}

const report = (bench: EvalReport['bench']): EvalReport => ({
  mode: 'full',
  startedAt: '2026-11-24T09:00:00.000Z',
  seconds: 1,
  machine: {
    cpu: 'test',
    cores: 2,
    memoryGiB: 1,
    os: 'test',
    node: 'v20',
    java: '17',
    loadAverage: 0,
    commit: 'x',
    dirty: false,
  },
  settings: {},
  data: { file: 'locomo-dev.json', conversations: [], questions: 0, historyQuestions: 0 },
  ideas: [],
  bench,
});

describe('bench targets in EVAL.md', () => {
  it('judges each figure of the bench run against its limit and names the run', () => {
    const bench = readBenchTargets(
      resultsFile({
        search: [{ name: 'p50, 10k chunks', value: 6.5, unit: 'ms' }],
        add: [{ name: 'add over HTTP / raw BatchWrite of the same items', value: 0.68, unit: 'ratio' }],
        lambda: [{ name: 'context-search: cold start median', value: 139.1, unit: 'ms' }],
      }),
    );
    const markdown = renderEvalMarkdown(report(bench));
    expect(markdown).toContain('## No regressions in the benchmarks (issue #13)');
    expect(markdown).toContain('commit abc1234, 2026-11-24');
    expect(markdown).toContain('- search p50 at 10k chunks ≤ 5 ms: 6.5 ms, **not met**');
    expect(markdown).toContain('(0.39 when issue #17 opened) ≥ 0.39: 0.68, met');
    expect(markdown).toContain('- context-search cold start median ≤ 150 ms: 139.1 ms, met');
  });

  it('leaves the section out when there is no bench run or it lacks a figure', () => {
    expect(readBenchTargets(join(tmpdir(), 'memgate-no-such-dir', 'results.json'))).toBeUndefined();
    const partial = resultsFile({ search: [{ name: 'p50, 10k chunks', value: 4, unit: 'ms' }] });
    expect(readBenchTargets(partial)).toBeUndefined();
    expect(renderEvalMarkdown(report(undefined))).not.toContain('No regressions');
  });

  it("finds every figure in the repository's committed bench run (a renamed figure fails here)", () => {
    const committed = readBenchTargets(join(import.meta.dirname, '../../bench/results.json'));
    expect(committed?.targets.map((target) => target.name)).toHaveLength(3);
  });
});
