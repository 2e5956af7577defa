/**
 * What the HNSW graph's insert parameters trade (issue 17, add throughput): for each `expansion_add`, the CPU of
 * inserting the bench's corpus (bench/lib/corpus.ts through the product's lexical embedder, 512 dimensions, 8-bit
 * quantised as vector-index/graph.ts builds it, 8 vectors per call on one thread as graphing.ts inserts) and the
 * dense recall@10 of a graph search against an exact scan, the graph's 30 nearest rescored exactly as search.ts does
 * (a result counts when it scores at least the exact 10th: ties are many). Run:
 * `npx tsx bench/graph-params.ts [vectors=10000] [expansions=128,64,48,32]` (`GRAPH_F32=1`: a float32 graph instead).
 */
import { createLexicalEmbedder } from '@memgate/adapters/embedders/lexical/index';
import usearch from 'usearch';
import { paragraph, queryText } from './lib/corpus.ts';

const size = Number(process.argv[2] ?? 10_000);
const expansions = (process.argv[3] ?? '128,64,48,32').split(',').map(Number);
const QUERIES = 300;
const DIMENSION = 512;

const embedder = createLexicalEmbedder({ dimension: DIMENSION });
const texts = Array.from({ length: size }, (_, i) => paragraph(Math.floor(i / 10) * 1000 + (i % 10)));
const vectors: Float32Array[] = [];
for (let i = 0; i < size; i += 500) vectors.push(...(await embedder.embed(texts.slice(i, i + 500), 'document')));
const queries = await embedder.embed(
  Array.from({ length: QUERIES }, (_, i) => queryText(i + 1)),
  'query',
);
const dot = (a: Float32Array, b: Float32Array) => {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i] as number) * (b[i] as number);
  return sum;
};
const tenthBest = queries.map(
  (query) => vectors.map((vector) => dot(query, vector)).sort((a, b) => b - a)[9] as number,
);

for (const expansion of expansions) {
  const graph = new usearch.Index({
    dimensions: DIMENSION,
    metric: usearch.MetricKind.Cos,
    connectivity: 16,
    expansion_add: expansion,
    expansion_search: 64,
    quantization: process.env.GRAPH_F32 ? usearch.ScalarKind.F32 : usearch.ScalarKind.I8,
    multi: false,
  });
  const started = process.cpuUsage();
  for (let first = 0; first < size; first += 8) {
    const count = Math.min(8, size - first);
    const keys = new BigUint64Array(count);
    const matrix = new Float32Array(count * DIMENSION);
    for (let j = 0; j < count; j++) {
      keys[j] = BigInt(first + j);
      matrix.set(vectors[first + j] as Float32Array, j * DIMENSION);
    }
    graph.add(keys, matrix, 1);
  }
  const cpu = process.cpuUsage(started);
  let found = 0;
  queries.forEach((query, q) => {
    const scores = [...graph.search(query, 30, 1).keys].map((key) => dot(query, vectors[Number(key)] as Float32Array));
    found += scores
      .sort((a, b) => b - a)
      .slice(0, 10)
      .filter((score) => score >= (tenthBest[q] as number) - 1e-6).length;
  });
  const perVector = (cpu.user + cpu.system) / 1000 / size;
  console.log(
    `expansion_add ${expansion}: insert ${perVector.toFixed(3)} ms CPU per vector; dense recall@10 ${(found / QUERIES / 10).toFixed(4)}`,
  );
}
