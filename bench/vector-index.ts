/**
 * Micro-benchmark of the embedded vector index: query latency (p50/p95) at 10k and 100k vectors in one namespace,
 * lexical-embedder vectors of synthetic text, unfiltered and with a scope filter. Run: `npx tsx bench/vector-index.ts [sizes...]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLexicalEmbedder } from '@memgate/adapters/embedders/lexical/index';
import type { VectorItem } from '@memgate/core';
import { createLocalVectorIndex } from '@memgate/local/vector-index/index';

const WORDS =
  'account password reset invoice payment refund shipping order delivery product warranty return policy support ' +
  'login email address billing plan upgrade cancel subscription report revenue quarter sales region team meeting ' +
  'schedule project deadline design review release version bug feature request customer feedback survey data'.split(
    ' ',
  );

function syntheticText(i: number): string {
  let state = i * 2654435761 + 1;
  const words: string[] = [];
  for (let w = 0; w < 60; w++) {
    state = (state * 1103515245 + 12345) >>> 0;
    words.push(WORDS[state % WORDS.length] as string);
  }
  return `${words.join(' ')} item ${i}`;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] as number;
}

async function run(size: number): Promise<void> {
  const embedder = createLexicalEmbedder({ dimension: 512 });
  const dir = mkdtempSync(join(tmpdir(), 'memgate-bench-'));
  const index = await createLocalVectorIndex({ dir });
  const started = performance.now();
  for (let offset = 0; offset < size; offset += 1000) {
    const texts = Array.from({ length: Math.min(1000, size - offset) }, (_, i) => syntheticText(offset + i));
    const vectors = await embedder.embed(texts, 'document');
    const items: VectorItem[] = vectors.map((values, i) => ({
      id: `chunk-${offset + i}`,
      values,
      metadata: {
        documentId: `doc-${Math.floor((offset + i) / 10)}`,
        userId: 'user-1',
        scopes: [(offset + i) % 10 === 0 ? 'external' : 'internal'],
        source: 'bench',
        fileName: 'bench.txt',
        docType: 'txt',
        contextType: 'resource',
        tags: [],
      },
    }));
    await index.upsert('user:bench', items);
  }
  const loadSeconds = (performance.now() - started) / 1000;
  const queries = await embedder.embed(
    Array.from({ length: 300 }, (_, i) => syntheticText(size + i).slice(0, 80)),
    'query',
  );
  for (const [label, filter] of [
    ['unfiltered', undefined],
    ['scope=internal (90%)', { scopes: 'internal' }],
    ['scope=external (10%)', { scopes: 'external' }],
    ['scope=internal & contextType=resource', { scopes: 'internal', contextType: 'resource' }],
    ['documentId (10 of n)', { documentId: 'doc-42' }],
  ] as const) {
    const timings: number[] = [];
    for (const vector of queries) {
      const t0 = performance.now();
      await index.query('user:bench', { vector, topK: 10, ...(filter ? { filter } : {}) });
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
    `${size} vectors: embed+upsert ${loadSeconds.toFixed(1)} s (${Math.round(size / loadSeconds)}/s), close ${((performance.now() - closeStarted) / 1000).toFixed(1)} s`,
  );
  const reopenStarted = performance.now();
  const reopened = await createLocalVectorIndex({ dir });
  await reopened.query('user:bench', { vector: queries[0] as Float32Array, topK: 1 });
  console.log(`${size} vectors: reopen + first query ${((performance.now() - reopenStarted) / 1000).toFixed(2)} s`);
  await reopened.close();
  rmSync(dir, { recursive: true, force: true });
}

const sizes = process.argv.slice(2).map(Number);
for (const size of sizes.length > 0 ? sizes : [10_000, 100_000]) await run(size);
