/**
 * What the HNSW graph contributes to the fused top 10 with the default lexical embedder (issues 17 and 13): the
 * bench's corpus (bench/lib/corpus.ts through the product's embedder, terms and chains, as bench/vector-index.ts
 * writes it) in one namespace store, hybrid queries as search sends them (DEFAULT_LEXICAL_WEIGHT, scope=internal),
 * and for each variant its overlap@10 with an exhaustive oracle (exact cosine and lexical match of every slot; a
 * result counts when its oracle score is at least the oracle's 10th: ties are many) and its time per query:
 * (a) search with the graph (expansion_add 128), (c) without a graph, as the product searches for the lexical
 * embedder (hybrid.ts: the dense half over the best 100 lexical candidates, exact cosine on those; an exact scan when
 * fewer than top_k slots match lexically), and the same here with other caps, (d) the graph with expansion_add 64
 * and 32. Graph inserts are timed as graphing.ts makes them (8 vectors per call, one thread). Run:
 * `npx tsx bench/dense-contribution.ts [vectors=10000] [queries=300]`.
 */
import { createLexicalEmbedder } from '@memgate/adapters/embedders/lexical/index';
import { DEFAULT_LEXICAL_WEIGHT, queryTermFrequencies, type VectorQuery } from '@memgate/core';
import { cosineTo } from '@memgate/local/vector-index/cosine';
import { DeferredGraph } from '@memgate/local/vector-index/graph';
import { searchNamespace } from '@memgate/local/vector-index/hybrid';
import { filterTest } from '@memgate/local/vector-index/search';
import { NamespaceStore } from '@memgate/local/vector-index/store';
import { paragraph, queryText } from './lib/corpus.ts';
import { corpusItems } from './lib/corpus-items.ts';

const size = Number(process.argv[2] ?? 10_000);
const queryCount = Number(process.argv[3] ?? 300);
const TOP_K = 10;
const BATCH = 1000;
const weight = DEFAULT_LEXICAL_WEIGHT;

const embedder = createLexicalEmbedder({ dimension: 512 });
const store = new NamespaceStore(512, undefined, false);
let upsertMs = 0;
for (let offset = 0; offset < size; offset += BATCH) {
  const texts = Array.from({ length: Math.min(BATCH, size - offset) }, (_, i) => paragraph(offset + i));
  const vectors = await embedder.embed(texts, 'document');
  const items = corpusItems(texts, vectors, offset);
  const started = performance.now();
  store.upsert(items);
  upsertMs += performance.now() - started;
}
const live = [...store.idToSlot.values()];
const texts = Array.from({ length: queryCount }, (_, i) => queryText(size + i));
const queries: VectorQuery[] = (await embedder.embed(texts, 'query')).map((vector, i) => ({
  vector,
  topK: TOP_K,
  terms: queryTermFrequencies(texts[i] as string),
  lexicalWeight: weight,
  filter: { scopes: 'internal' },
}));

/** Every accepted slot's fused score, the oracle's 10th best, and how many slots match lexically. */
function oracle(query: VectorQuery): { scores: Map<string, number>; tenth: number; lexicalCount: number } {
  const accepts = filterTest(store, query.filter) as (slot: number) => boolean;
  const lexical = store.lexical.score(query.terms as NonNullable<VectorQuery['terms']>, accepts);
  const cosineOf = cosineTo(store, query.vector);
  const scores = new Map<string, number>();
  for (const slot of live) {
    if (!accepts(slot)) continue;
    const cosine = cosineOf(slot);
    const id = (store.slots[slot] as { id: string }).id;
    scores.set(id, (1 - weight) * cosine + weight * (lexical.scores[slot] as number));
  }
  const tenth = [...scores.values()].sort((a, b) => b - a)[TOP_K - 1] as number;
  return { scores, tenth, lexicalCount: lexical.count };
}

const oracles = queries.map(oracle);
const fewer = oracles.filter((o) => o.lexicalCount < TOP_K).length;
const provable = oracles.filter((o) => o.tenth >= 1 - weight).length;
console.log(
  `${size} vectors, ${queryCount} queries (scope=internal, weight ${weight}): upsert without graph ${((upsertMs * 1000) / size).toFixed(0)} µs per vector; ` +
    `queries with fewer than ${TOP_K} lexical matches ${fewer}; oracle's 10th ≥ ${(1 - weight).toFixed(1)} (no slot without a lexical match can enter) ${provable}; ` +
    `lexical matches per query median ${median(oracles.map((o) => o.lexicalCount))}`,
);

function measure(label: string, search: (query: VectorQuery) => { id: string; score: number }[]): void {
  const times: number[] = [];
  let found = 0;
  let exact = 0;
  const cpu = process.cpuUsage();
  queries.forEach((query, q) => {
    const started = performance.now();
    const results = search(query);
    times.push(performance.now() - started);
    const { scores, tenth } = oracles[q] as ReturnType<typeof oracle>;
    const hits = results.filter((result) => (scores.get(result.id) ?? -1) >= tenth - 1e-9).length;
    found += hits;
    if (hits === TOP_K) exact++;
  });
  const used = process.cpuUsage(cpu);
  console.log(
    `${label}: overlap@10 ${(found / queries.length / TOP_K).toFixed(4)} (${exact}/${queries.length} queries all 10), ` +
      `query p50 ${median(times).toFixed(3)} ms, CPU ${((used.user + used.system) / 1000 / queries.length).toFixed(3)} ms per query`,
  );
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** Variant (c) capped: the fused score of the `cap` best lexical candidates only (exact cosine on those). */
function bestLexical(query: VectorQuery, cap: number): { id: string; score: number }[] {
  const accepts = filterTest(store, query.filter) as (slot: number) => boolean;
  const lexical = store.lexical.score(query.terms as NonNullable<VectorQuery['terms']>, accepts);
  const cosine = cosineTo(store, query.vector);
  const order = Array.from(lexical.slots.subarray(0, lexical.count))
    .sort((a, b) => (lexical.scores[b] as number) - (lexical.scores[a] as number))
    .slice(0, cap);
  return order
    .map((slot) => ({
      id: (store.slots[slot] as { id: string }).id,
      score: (1 - weight) * cosine(slot) + weight * (lexical.scores[slot] as number),
    }))
    .sort((a, b) => b.score - a.score)
    .slice(0, TOP_K);
}
const search = (query: VectorQuery) => searchNamespace(store, query);
for (const cap of [20, 50, 100, 200])
  measure(`(c) capped: the ${cap} best lexical candidates`, (q) => bestLexical(q, cap));
measure('(c) no graph (product: the best 100 lexical candidates, exact cosine) (first pass: warms the JIT)', search);
measure('(c) no graph (product: the best 100 lexical candidates, exact cosine)', search);
for (const expansion of [128, 64, 32]) {
  const graph = new DeferredGraph(512, expansion);
  for (const slot of live) graph.stage(slot, false);
  Object.defineProperty(store, 'graph', { value: graph });
  const cpu = process.cpuUsage();
  while (graph.ungraphed.size > 0) store.insertIntoGraph(8);
  const used = process.cpuUsage(cpu);
  console.log(
    `expansion_add ${expansion}: graph insert ${((used.user + used.system) / 1000 / size).toFixed(3)} ms CPU per vector`,
  );
  measure(`${expansion === 128 ? '(a) graph' : '(d) graph'}, expansion_add ${expansion}`, (query) =>
    searchNamespace(store, query),
  );
}
measure('(b) oracle itself', (query) => {
  const { scores } = oracle(query);
  return [...scores]
    .sort((a, b) => b[1] - a[1])
    .slice(0, TOP_K)
    .map(([id, score]) => ({ id, score }));
});
