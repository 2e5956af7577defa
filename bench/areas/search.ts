import { queryText } from '../lib/corpus.ts';
import type { BenchEnv, Corpus } from '../lib/env.ts';
import { expectStatus, postJson } from '../lib/http.ts';
import { type LoadOptions, runLoad } from '../lib/load.ts';
import { type AreaResult, atMost, type Budget, type Figure, figure } from '../lib/results.ts';
import { round, type Summary, summarize } from '../lib/stats.ts';

/** The search budgets (p50) by corpus size: issue 3's at 10k; at 100k issue 17's (≤ 5 ms, where issue 3 asked ≤ 20). */
const BUDGETS: Record<number, Budget> = { 10000: atMost(5, '#3'), 100000: atMost(5, '#17') };

/** Distinct queries (more than any run sends to one corpus): a search of whatever the user types, top 10 asked. */
const QUERIES = Array.from({ length: 1024 }, (_, i) =>
  JSON.stringify({ query: queryText(i), similarity_threshold: 1, minimum_similarity_threshold: 0 }),
);

export interface SizeResult {
  size: number;
  latency: Summary;
  loaded: { requestsPerSecond: number; latency: Summary };
}

const label = (size: number) => (size >= 1000 ? `${size / 1000}k` : String(size));

interface Target {
  corpus: Corpus;
  load: Omit<LoadOptions, 'bodies' | 'connections'>;
}

/** The corpus's search target, after a probe: a search that found nothing would be fast and meaningless. */
async function targetOf(env: BenchEnv, corpus: Corpus): Promise<Target> {
  const headers = { authorization: `Bearer ${await env.token(corpus.user)}` };
  const url = `${env.server.url}/api/v1/context/search`;
  const probe = expectStatus(
    await postJson<{ results: unknown[] }>(url, JSON.parse(QUERIES[0] as string), headers),
    202,
    'search',
  );
  if (probe.body.results.length !== 10) {
    throw new Error(`search in the ${label(corpus.size)} corpus returned ${probe.body.results.length} results, not 10`);
  }
  return { corpus, load: { url, headers, what: `search, ${label(corpus.size)} chunks` } };
}

/**
 * Latency at concurrency 1, in bursts that rotate over the corpora, so a slow minute of a shared machine lands on every
 * size alike rather than on whichever ran then. Each burst sends queries no earlier burst sent.
 */
async function sequentialLatencies(targets: readonly Target[], perTarget: number, bursts: number) {
  const latencies = new Map<number, number[]>(targets.map((target) => [target.corpus.size, []]));
  const perBurst = Math.ceil(perTarget / bursts);
  for (let burst = 0; burst < bursts; burst++) {
    for (const target of targets) {
      const bodies = QUERIES.slice(burst * perBurst, (burst + 1) * perBurst);
      const run = await runLoad({ ...target.load, bodies, connections: 1, amount: bodies.length }, 202);
      latencies.get(target.corpus.size)?.push(...run.latencies);
    }
  }
  return latencies;
}

/**
 * Search latency and throughput (issue 3): for each seeded corpus (1k, 10k, 100k chunks in the caller's tenant),
 * autocannon sends distinct queries one at a time (latency), then from 16 connections (throughput).
 */
export async function searchArea(env: BenchEnv): Promise<AreaResult> {
  const targets: Target[] = [];
  for (const corpus of env.corpora) targets.push(await targetOf(env, corpus));
  const perTarget = env.quick ? 150 : 500;
  // Warm-up: the server loads a tenant's index on its first search; those queries are not measured.
  for (const target of targets) {
    const bodies = QUERIES.slice(-(env.quick ? 30 : 60));
    await runLoad({ ...target.load, bodies, connections: 1, amount: bodies.length }, 202);
  }
  const latencies = await sequentialLatencies(targets, perTarget, env.quick ? 4 : 10);
  const sizes: SizeResult[] = [];
  for (const target of targets) {
    const loaded = await env.rss.during(`search load at concurrency 16, ${label(target.corpus.size)} chunks`, () =>
      runLoad({ ...target.load, bodies: QUERIES, connections: 16, durationSeconds: env.quick ? 3 : 6 }, 202),
    );
    sizes.push({
      size: target.corpus.size,
      latency: summarize(latencies.get(target.corpus.size) ?? []),
      loaded: { requestsPerSecond: loaded.requestsPerSecond, latency: summarize(loaded.latencies) },
    });
  }
  const figures: Figure[] = sizes.flatMap((result) => {
    const budget = BUDGETS[result.size];
    return [
      figure(`p50, ${label(result.size)} chunks`, round(result.latency.p50), 'ms', budget ? { budget } : {}),
      figure(`p99, ${label(result.size)} chunks`, round(result.latency.p99), 'ms'),
      figure(
        `throughput at concurrency 16, ${label(result.size)} chunks`,
        Math.round(result.loaded.requestsPerSecond),
        'req/s',
        {
          note: `latency under that load p50 ${round(result.loaded.latency.p50)} ms, p99 ${round(result.loaded.latency.p99)} ms`,
        },
      ),
    ];
  });
  const missing = [1000, 10_000, 100_000].filter((size) => !sizes.some((result) => result.size === size));
  return {
    id: 'search',
    title: 'Context store: search',
    figures,
    notes: [
      `Each corpus belongs to its own user (its own tenant); queries are 5 of the less common words of one chunk (bench/lib/corpus.ts), top_k 10, band [0, 1], so every search returns 10 results (checked). Latency: ${perTarget} searches per corpus at concurrency 1 after a warm-up, in bursts rotating over the corpora; throughput: ${env.quick ? 3 : 6} s at 16 connections per corpus (autocannon).`,
      `Corpora seeded in-process through the real context store before the server started: ${env.seed.chunks} chunks in ${round(env.seed.seconds)} s (${Math.round(env.seed.chunksPerSecond)} chunks/s, 1,000-chunk adds, 4 at a time)${seedingNote(env.seed)}.`,
      ...(missing.length > 0 ? [`Not measured in this run (--quick): ${missing.map(label).join(', ')} chunks.`] : []),
    ],
    series: Object.fromEntries(
      sizes.map((result) => [
        label(result.size),
        { p50: result.latency.p50, p99: result.latency.p99, size: result.size },
      ]),
    ),
  };
}

/** Where the measured corpora came from, when not seeded by this run. */
function seedingNote(seed: BenchEnv['seed']): string {
  if (seed.seededBy)
    return `; this run restored corpora that other code seeded (--reuse-corpus, cache ${seed.seededBy})`;
  return seed.cached ? '; this run restored the copy that an earlier run of the same code seeded' : '';
}
