import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** Where seeded corpora are kept; BENCH_CORPUS_CACHE chooses another directory (the tests use a temporary one). */
const CACHE = process.env.BENCH_CORPUS_CACHE ?? join(ROOT, 'node_modules', '.cache', 'memgate-bench');

/** What decides the bytes a seeded corpus leaves in DATA_DIR: the product's code, the corpus generator, the lock file. */
const INPUTS = [
  'packages/core/src',
  'packages/adapters/src',
  'packages/local/src',
  'bench/lib/corpus.ts',
  'bench/lib/seed.ts',
];

function sourceFiles(path: string): string[] {
  const full = join(ROOT, path);
  if (!existsSync(full)) return [];
  if (statSync(full).isFile()) return [path];
  return readdirSync(full, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && !entry.name.endsWith('.test.ts'))
    .map((entry) => relative(ROOT, join(entry.parentPath, entry.name)));
}

/**
 * A hash of every input that shapes a seeded corpus. Any change to the store's code, the embedder, the vector index,
 * the corpus generator or the dependencies gives a new key, so a cached corpus is always what seeding now would
 * produce.
 */
export function corpusKey(sizes: readonly number[]): string {
  const hash = createHash('sha256');
  const files = [...INPUTS.flatMap(sourceFiles), 'package-lock.json'].sort();
  for (const file of files)
    hash
      .update(file)
      .update('\0')
      .update(readFileSync(join(ROOT, file)))
      .update('\0');
  return `${hash.digest('hex').slice(0, 16)}-${sizes.join('-')}`;
}

/** Copies the cached DATA_DIR for `key` into `dataDir`; returns its seeding report, or undefined when not cached. */
export function restoreCorpus<T>(key: string, dataDir: string): T | undefined {
  const dir = join(CACHE, key);
  const manifest = join(dir, 'seed.json');
  if (!existsSync(manifest)) return undefined;
  cpSync(join(dir, 'data'), dataDir, { recursive: true });
  // Its age orders the copies kept (saveCorpus): a copy restored now is the last one a later save drops.
  const now = new Date();
  utimesSync(manifest, now, now);
  return JSON.parse(readFileSync(manifest, 'utf8')) as T;
}

/**
 * The most recently seeded or restored copy of corpora of these sizes, whatever code seeded it (`--reuse-corpus`):
 * for measuring a change that does not touch what seeding writes, without seeding again. Undefined when none is kept.
 */
export function latestCorpusKey(sizes: readonly number[]): string | undefined {
  const suffix = `-${sizes.join('-')}`;
  return cachedByAge().find((entry) => entry.endsWith(suffix));
}

/** Cached corpora, most recently used first. */
function cachedByAge(): string[] {
  if (!existsSync(CACHE)) return [];
  return readdirSync(CACHE)
    .filter((entry) => existsSync(join(CACHE, entry, 'seed.json')))
    .map((entry) => ({ entry, used: statSync(join(CACHE, entry, 'seed.json')).mtimeMs }))
    .sort((a, b) => b.used - a.used)
    .map(({ entry }) => entry);
}

/**
 * Keeps a copy of a freshly seeded DATA_DIR (DynamoDB Local stopped, vector index closed) for later runs. Of the
 * copies other code seeded, the two most recently used stay, so old and new code can be measured alternately in one
 * checkout without seeding each time; older ones go (each full set is about a gigabyte).
 */
export function saveCorpus(key: string, dataDir: string, report: unknown): void {
  mkdirSync(CACHE, { recursive: true });
  for (const entry of readdirSync(CACHE)) {
    if (entry.startsWith('.partial-')) rmSync(join(CACHE, entry), { recursive: true, force: true });
  }
  const others = cachedByAge().filter((entry) => entry !== key);
  for (const entry of others.slice(KEPT_OTHERS)) rmSync(join(CACHE, entry), { recursive: true, force: true });
  const partial = join(CACHE, `.partial-${key}`);
  cpSync(dataDir, join(partial, 'data'), { recursive: true });
  writeFileSync(join(partial, 'seed.json'), JSON.stringify(report));
  rmSync(join(CACHE, key), { recursive: true, force: true });
  renameSync(partial, join(CACHE, key));
}

/** Copies seeded by other code kept beside the newest one. */
const KEPT_OTHERS = 2;
