import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Machine } from '../bench/lib/machine.ts';
import { atLeast, atMost, figure } from '../bench/lib/results.ts';
import { addedLatency, percentile } from '../bench/lib/stats.ts';
import type { BenchReport } from '../bench/report/markdown.ts';
import { niceTicks } from '../bench/report/svg.ts';
import { writeReport } from '../bench/report/write.ts';

// The benchmark itself runs with `npm run bench`; this only checks that its report says what was measured.

const machine: Machine = {
  cpu: 'Test CPU',
  cores: 2,
  memoryGiB: 8,
  os: 'Linux test',
  node: 'v20.0.0',
  java: '17.0.1',
  loadAverage: 0.5,
  commit: 'abc1234',
  dirty: false,
};

function report(): BenchReport {
  return {
    mode: 'full',
    startedAt: '2026-01-02T03:04:05.000Z',
    seconds: 125,
    machine,
    warmUp: { seconds: 20, requests: 2468 },
    areas: [
      {
        id: 'proxy',
        title: 'Completion proxy: added latency (non-streaming)',
        figures: [
          figure('added latency p50, passthrough', 0.4, 'ms', { budget: atMost(1, '#4'), peer: 'portkey 0.9 ms' }),
          figure('added latency p50, filtering and context on', 7.5, 'ms', { budget: atMost(5, '#4') }),
        ],
        notes: ['300 rounds'],
        series: { direct: [0.5, 0.6, 0.7], passthrough: [0.9, 1, 1.2], portkey: [1.3, 1.5, 2] },
      },
      {
        id: 'search',
        title: 'Context store: search',
        figures: [figure('p50, 10k chunks', 3.2, 'ms', { budget: atMost(5, '#3') })],
        notes: [],
        series: { '1k': { p50: 1, p99: 2, size: 1000 }, '10k': { p50: 3.2, p99: 6, size: 10_000 } },
      },
      {
        id: 'add',
        title: 'Context store: add throughput',
        figures: [figure('add over HTTP / raw BatchWrite', 0.85, 'ratio', { budget: atLeast(0.8, '#3') })],
        notes: [],
      },
      { id: 'lambda', title: 'Lambda bundles and cold starts', figures: [], notes: [], skipped: 'esbuild failed' },
    ],
  };
}

describe('benchmark report', () => {
  let dir = '';
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('writes RESULTS.md with the machine, a judged table per area, the plots, and results.json', () => {
    dir = mkdtempSync(join(tmpdir(), 'bench-report-'));
    const written = writeReport(dir, report());
    expect(written.map((path) => path.slice(dir.length + 1)).sort()).toEqual([
      'RESULTS.md',
      'proxy-latency.svg',
      'results.json',
      'search-latency.svg',
    ]);
    const markdown = readFileSync(join(dir, 'RESULTS.md'), 'utf8');
    expect(markdown).toContain('| CPU | Test CPU, 2 cores |');
    expect(markdown).toContain('full run, 2 min 5 s');
    expect(markdown).toContain('| warm-up before the first area | 2468 requests in 20 s');
    expect(markdown).toContain('4 figures have a budget: 3 pass, 1 fail.');
    expect(markdown).toContain('| added latency p50, passthrough | 0.4 ms | ≤ 1 ms (#4) | pass | portkey 0.9 ms |');
    expect(markdown).toContain('| added latency p50, filtering and context on | 7.5 ms | ≤ 5 ms (#4) | **FAIL** |  |');
    expect(markdown).toContain('| add over HTTP / raw BatchWrite | 0.85 | ≥ 0.8 (#3) | pass |  |');
    expect(markdown).toContain('Not measured in this run: esbuild failed');
    expect(markdown).toContain('](proxy-latency.svg)');
    expect(markdown).toContain('](search-latency.svg)');
    const json = JSON.parse(readFileSync(join(dir, 'results.json'), 'utf8')) as BenchReport;
    expect(json.areas[0]?.series?.direct).toEqual([0.5, 0.6, 0.7]);
    expect(json.areas[0]?.figures[1]?.pass).toBe(false);
    const svg = readFileSync(join(dir, 'search-latency.svg'), 'utf8');
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain('p50 budget (#3)');
    // Every series is drawn: a path with at least one segment, all of it inside the plot area.
    for (const file of ['proxy-latency.svg', 'search-latency.svg']) {
      const paths = [...readFileSync(join(dir, file), 'utf8').matchAll(/<path d="([^"]*)"/g)].map(
        (m) => m[1] as string,
      );
      expect(paths.length).toBeGreaterThanOrEqual(3);
      for (const path of paths) {
        expect(path).toMatch(/^M[\d.]+ [\d.]+ L/);
        const ys = [...path.matchAll(/[ML][\d.]+ ([\d.]+)/g)].map((m) => Number(m[1]));
        expect(Math.min(...ys)).toBeGreaterThanOrEqual(40);
      }
    }
  });

  it('ends RESULTS.md with the hand-written analysis of what is over budget, and only when something is', () => {
    dir = mkdtempSync(join(tmpdir(), 'bench-report-'));
    writeFileSync(join(dir, 'OVER-BUDGET.md'), '**Filtering and context:** the BatchGet of rows is most of it.\n');
    writeReport(dir, report());
    const markdown = readFileSync(join(dir, 'RESULTS.md'), 'utf8');
    expect(markdown.trimEnd().endsWith('**Filtering and context:** the BatchGet of rows is most of it.')).toBe(true);
    expect(markdown).toContain('## Over budget: where the time goes and what would close it');

    const allPass = report();
    allPass.areas = allPass.areas.filter((area) => area.id !== 'proxy');
    writeReport(dir, allPass);
    expect(readFileSync(join(dir, 'RESULTS.md'), 'utf8')).not.toContain('Over budget');
  });

  it('computes nearest-rank percentiles and added latency as through minus direct', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(sorted, 0.5)).toBe(50);
    expect(percentile(sorted, 0.99)).toBe(99);
    const added = addedLatency([2, 3, 4], [1, 1, 2]);
    expect(added.p50Difference).toBe(2);
    expect(added.paired.p50).toBe(2);
  });

  it('gives plot axes round ticks that cover every value', () => {
    expect(niceTicks(0, 25.2)).toEqual([0, 10, 20, 30]);
    expect(niceTicks(0, 100)).toEqual([0, 20, 40, 60, 80, 100]);
  });
});
