import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

// The bench keeps seeded corpora (about a gigabyte each) so that old and new code can be measured alternately in one
// checkout without seeding each time (bench/README.md, "What runs where").

const root = mkdtempSync(join(tmpdir(), 'memgate-corpus-cache-'));
let cache: typeof import('../bench/lib/corpus-cache.ts');

beforeAll(async () => {
  vi.stubEnv('BENCH_CORPUS_CACHE', join(root, 'cache'));
  cache = await import('../bench/lib/corpus-cache.ts');
});
afterAll(() => {
  vi.unstubAllEnvs();
  rmSync(root, { recursive: true, force: true });
});

/** A DATA_DIR with one file saying which code seeded it, saved under `key`, `ageS` seconds old. */
function seeded(key: string, ageS: number): void {
  const data = join(root, `data-${key}`);
  mkdirSync(data, { recursive: true });
  writeFileSync(join(data, 'table.db'), key);
  cache.saveCorpus(key, data, { chunks: 1, seconds: 1, chunksPerSecond: 1 });
  const then = new Date(Date.now() - ageS * 1000);
  utimesSync(join(root, 'cache', key, 'seed.json'), then, then);
}

function restored(key: string): string | undefined {
  const into = mkdtempSync(join(root, 'restore-'));
  return cache.restoreCorpus(key, into) ? readFileSync(join(into, 'table.db'), 'utf8') : undefined;
}

describe('the bench corpus cache', () => {
  it('keeps the newest copy and the two most recently used of other code, and restores each as it was saved', () => {
    seeded('aaaa-1000-10000', 400);
    seeded('bbbb-1000-10000', 300);
    seeded('cccc-1000-10000', 200);
    expect(restored('aaaa-1000-10000')).toBe('aaaa-1000-10000'); // restoring makes it the most recently used
    seeded('dddd-1000-10000', 100);
    expect(readdirSync(join(root, 'cache')).sort()).toEqual(['aaaa-1000-10000', 'cccc-1000-10000', 'dddd-1000-10000']);
    expect(restored('bbbb-1000-10000')).toBeUndefined();
    expect(restored('cccc-1000-10000')).toBe('cccc-1000-10000');
  });

  it('finds the latest copy of the same sizes whatever code seeded it (--reuse-corpus)', () => {
    expect(cache.latestCorpusKey([1000, 10_000])).toBe('cccc-1000-10000'); // restored last, above
    expect(cache.latestCorpusKey([1000])).toBeUndefined();
  });
});
