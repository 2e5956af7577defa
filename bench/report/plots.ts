import type { AreaResult } from '../lib/results.ts';
import { percentile } from '../lib/stats.ts';
import { lineChart, type Series } from './svg.ts';

export interface Plot {
  /** File name beside RESULTS.md. */
  file: string;
  /** The area whose table it illustrates. */
  areaId: string;
  alt: string;
  svg: string;
}

const COLORS = { direct: '#555555', passthrough: '#1f77b4', filtering: '#2ca02c', portkey: '#d62728' };
const NAMES = {
  direct: 'direct to the stub',
  passthrough: 'memgate passthrough',
  filtering: 'memgate filtering on',
  portkey: 'portkey gateway',
};

/** The empirical distribution function of `samples` as at most `points` (latency, % at or below) points. */
export function cdfPoints(samples: readonly number[], points = 200): [number, number][] {
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 0) return [];
  const step = Math.max(1, Math.floor(sorted.length / points));
  const out: [number, number][] = [];
  for (let i = 0; i < sorted.length; i += step) out.push([sorted[i] as number, ((i + 1) / sorted.length) * 100]);
  out.push([sorted[sorted.length - 1] as number, 100]);
  return out;
}

function proxyPlot(area: AreaResult): Plot | undefined {
  const series: Series[] = [];
  let right = 0;
  let left = Number.POSITIVE_INFINITY;
  for (const key of Object.keys(NAMES) as (keyof typeof NAMES)[]) {
    const samples = area.series?.[key];
    if (!Array.isArray(samples) || samples.length === 0) continue;
    const sorted = [...samples].sort((a, b) => a - b);
    right = Math.max(right, percentile(sorted, 0.99));
    left = Math.min(left, sorted[0] as number);
    series.push({ name: NAMES[key], points: cdfPoints(sorted), color: COLORS[key] });
  }
  if (series.length === 0) return undefined;
  return {
    file: 'proxy-latency.svg',
    areaId: area.id,
    alt: 'Round-trip latency distribution: direct to the stub vs through memgate and portkey',
    svg: lineChart({
      title: 'Proxy round trip at concurrency 1: cumulative distribution (to the slowest p99)',
      xLabel: 'round-trip latency (ms, log scale)',
      yLabel: '% of requests at or below',
      series,
      xLog: true,
      xRange: [left * 0.9, right * 1.1],
      xTicks: [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500],
      yRange: [0, 100],
    }),
  };
}

function searchPlot(area: AreaResult): Plot | undefined {
  const rows = Object.values(area.series ?? {})
    .filter((value): value is Record<string, number> => !Array.isArray(value))
    .filter((row) => typeof row.size === 'number')
    .sort((a, b) => (a.size as number) - (b.size as number));
  if (rows.length === 0) return undefined;
  const sizes = rows.map((row) => row.size as number);
  return {
    file: 'search-latency.svg',
    areaId: area.id,
    alt: 'Search latency p50 and p99 against the number of chunks in the tenant, with the budgets',
    svg: lineChart({
      title: 'Search latency against corpus size (concurrency 1)',
      xLabel: "chunks in the caller's tenant (log scale)",
      yLabel: 'latency (ms)',
      xLog: true,
      xRange: [Math.min(...sizes) / 1.5, Math.max(...sizes, 100_000) * 1.5],
      xTicks: [1000, 10_000, 100_000],
      series: [
        {
          name: 'p50',
          points: rows.map((row) => [row.size as number, row.p50 as number]),
          color: '#1f77b4',
          dots: true,
        },
        {
          name: 'p99',
          points: rows.map((row) => [row.size as number, row.p99 as number]),
          color: '#ff7f0e',
          dots: true,
        },
        {
          name: 'p50 budget (#3)',
          points: [
            [10_000, 5],
            [100_000, 20],
          ],
          color: '#d62728',
          dashed: true,
          dots: true,
        },
      ],
    }),
  };
}

/** The plots of this run's results (an area that did not run gives no plot). */
export function plotsOf(areas: readonly AreaResult[]): Plot[] {
  const byId = new Map(areas.filter((area) => !area.skipped).map((area) => [area.id, area]));
  const proxy = byId.get('proxy');
  const search = byId.get('search');
  return [proxy && proxyPlot(proxy), search && searchPlot(search)].filter((plot): plot is Plot => plot !== undefined);
}
