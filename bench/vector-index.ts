/**
 * Micro-benchmark of the embedded vector index: query latency (p50/p95) at 10k and 100k vectors in one namespace,
 * the bench's corpus text (bench/lib/corpus.ts) through the product's lexical embedder and term extraction, hybrid
 * queries as search sends them (DEFAULT_LEXICAL_WEIGHT), dense-only queries, and filters; then the upsert rate,
 * close and reopen, and the process's memory with the namespace loaded again from its snapshot alone. Items carry
 * their chains as the add path writes them (VectorItem.chain: neighbours' terms lent at query time); `--no-chains`
 * writes them as before chains (neighbours' terms stored with each chunk). The index has no HNSW graph, as the server
 * opens it for the lexical embedder; `--graph` keeps one (as for neural embeddings). Run:
 * `node --expose-gc --import tsx bench/vector-index.ts [sizes...]` (add `--hybrid-only` to skip the dense rows).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLexicalEmbedder } from '@memgate/adapters/embedders/lexical/index';
import { DEFAULT_LEXICAL_WEIGHT, queryTermFrequencies, type VectorQuery } from '@memgate/core';
import { createLocalVectorIndex } from '@memgate/local/vector-index/index';
import { paragraph, queryText } from './lib/corpus.ts';
import { corpusItems } from './lib/corpus-items.ts';

const denseGraph = process.argv.includes('--graph');

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number;
}

const BATCH = 1000;

async function run(size: number, hybridOnly: boolean, chains: boolean): Promise<void> {
  const embedder = createLexicalEmbedder({ dimension: 512 });
  const dir = mkdtempSync(join(tmpdir(), 'memgate-bench-'));
  const index = await createLocalVectorIndex({ dir, denseGraph });
  let upsertMs = 0;
  const started = performance.now();
  for (let offset = 0; offset < size; offset += BATCH) {
    const texts = Array.from({ length: Math.min(BATCH, size - offset) }, (_, i) => paragraph(offset + i));
    const vectors = await embedder.embed(texts, 'document');
    const items = corpusItems(texts, vectors, offset, chains);
    const upsertStarted = performance.now();
    await index.upsert('user:bench', items);
    upsertMs += performance.now() - upsertStarted;
  }
  const loadSeconds = (performance.now() - started) / 1000;
  const texts = Array.from({ length: 300 }, (_, i) => queryText(size + i));
  const vectors = await embedder.embed(texts, 'query');
  const hybrid = (i: number) => ({
    terms: queryTermFrequencies(texts[i] as string),
    lexicalWeight: DEFAULT_LEXICAL_WEIGHT,
  });
  const rows: [string, (i: number) => Partial<VectorQuery>][] = [
    ['hybrid, scope=internal (as search asks)', (i) => ({ ...hybrid(i), filter: { scopes: 'internal' } })],
    ['hybrid, unfiltered', hybrid],
    ['hybrid, scope=external (10%)', (i) => ({ ...hybrid(i), filter: { scopes: 'external' } })],
  ];
  if (!hybridOnly) {
    rows.push(
      ['dense, unfiltered', () => ({})],
      ['dense, scope=internal (90%)', () => ({ filter: { scopes: 'internal' } })],
      ['dense, documentId (10 of n)', () => ({ filter: { documentId: 'doc-42' } })],
    );
  }
  for (const [label, extra] of rows) {
    const timings: number[] = [];
    for (const [i, vector] of vectors.entries()) {
      const query = { vector, topK: 10, ...extra(i) };
      const t0 = performance.now();
      await index.query('user:bench', query);
      timings.push(performance.now() - t0);
    }
    timings.sort((a, b) => a - b);
    console.log(
      `${size} vectors, ${label}: p50 ${percentile(timings, 0.5).toFixed(3)} ms, p95 ${percentile(timings, 0.95).toFixed(3)} ms`,
    );
  }
  const closeStarted = performance.now();
  await index.close();
  console.log(
    `${size} vectors: embed+terms+upsert ${loadSeconds.toFixed(1)} s (${Math.round(size / loadSeconds)}/s), upsert alone ${((upsertMs * 1000) / size).toFixed(0)} µs per vector, close ${((performance.now() - closeStarted) / 1000).toFixed(1)} s`,
  );
  const reopenStarted = performance.now();
  const reopened = await createLocalVectorIndex({ dir, denseGraph });
  await reopened.query('user:bench', { vector: vectors[0] as Float32Array, topK: 1 });
  console.log(`${size} vectors: reopen + first query ${((performance.now() - reopenStarted) / 1000).toFixed(2)} s`);
  // A fresh process, so what the writer held does not hide in its heap or its allocator.
  const child = spawnSync(process.execPath, [
    '--expose-gc',
    '--import',
    'tsx',
    import.meta.filename,
    `--load=${dir}`,
    ...(denseGraph ? ['--graph'] : []),
  ]);
  console.log(
    `${size} vectors (${chains ? 'chains' : 'no chains'}, ${denseGraph ? 'graph' : 'no graph'}): ${child.stdout.toString().trim()}`,
  );
  await reopened.close();
  rmSync(dir, { recursive: true, force: true });
}

/** The process's memory after a full collection (with --expose-gc). */
function memory(): NodeJS.MemoryUsage {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage();
}

/** The memory one process takes to load the namespace in `dir` from its snapshot (after a full collection). */
async function loadAlone(dir: string): Promise<void> {
  const before = memory();
  const index = await createLocalVectorIndex({ dir, denseGraph });
  await index.query('user:bench', { vector: new Float32Array(512).fill(1), topK: 1 });
  const loaded = memory();
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
  console.log(
    `loaded alone: rss ${mib(loaded.rss)} (+${mib(loaded.rss - before.rss)}), heap used +${mib(loaded.heapUsed - before.heapUsed)}, array buffers +${mib(loaded.arrayBuffers - before.arrayBuffers)}, external +${mib(loaded.external - before.external)}`,
  );
  await index.close();
}

const load = process.argv.find((arg) => arg.startsWith('--load='))?.slice('--load='.length);
if (load) {
  await loadAlone(load);
  process.exit(0);
}
const hybridOnly = process.argv.includes('--hybrid-only');
const chains = !process.argv.includes('--no-chains');
const sizes = process.argv
  .slice(2)
  .filter((arg) => !arg.startsWith('--'))
  .map(Number);
for (const size of sizes.length > 0 ? sizes : [10_000, 100_000]) await run(size, hybridOnly, chains);
