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
  writeFileSync,
} from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CACHE = join(ROOT, 'node_modules', '.cache', 'memgate-bench');

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
  return JSON.parse(readFileSync(manifest, 'utf8')) as T;
}

/**
 * Keeps a copy of a freshly seeded DATA_DIR (DynamoDB Local stopped, vector index closed) for later runs, and drops
 * cached corpora of older code (they can never match again).
 */
export function saveCorpus(key: string, dataDir: string, report: unknown): void {
  mkdirSync(CACHE, { recursive: true });
  const codeHash = key.split('-')[0] as string;
  for (const entry of readdirSync(CACHE)) {
    if (!entry.startsWith(codeHash)) rmSync(join(CACHE, entry), { recursive: true, force: true });
  }
  const partial = join(CACHE, `.partial-${key}`);
  rmSync(partial, { recursive: true, force: true });
  cpSync(dataDir, join(partial, 'data'), { recursive: true });
  writeFileSync(join(partial, 'seed.json'), JSON.stringify(report));
  rmSync(join(CACHE, key), { recursive: true, force: true });
  renameSync(partial, join(CACHE, key));
}
