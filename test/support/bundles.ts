import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import { type BundleReport, buildFunctions } from '../../scripts/build.ts';

export interface TestBundles {
  /** Where the bundles are: `<dir>/<name>/index.mjs`. */
  dir: string;
  bundles: Map<string, BundleReport>;
  /** Kept for callers' afterAll; the run's global teardown removes the shared build. */
  remove(): void;
}

const REPORT = 'bundles.json';
const BUILD_WAIT_MS = 180_000;
/**
 * For a hook that waits for the bundles: the wait above plus what the hook does after it. Under a full `npm test`
 * on 2 cores, one esbuild run per function takes well over a minute (a 120 s hook timed out in CI).
 */
export const BUNDLES_HOOK_TIMEOUT_MS = BUILD_WAIT_MS + 60_000;

function readReport(dir: string): BundleReport[] | undefined {
  try {
    return JSON.parse(readFileSync(join(dir, REPORT), 'utf8')) as BundleReport[];
  } catch {
    return undefined;
  }
}

/**
 * The Lambda bundles of this test run, built once for all test files and workers (an esbuild of 8 functions is
 * several seconds of both cores): the first caller takes the build lock (an exclusive mkdir), the others wait for
 * its report. The directory (under node_modules, so the runner hands the bundles to Node's own loader untransformed,
 * and inside the repo, so external `@aws-sdk/*` imports resolve as from the Lambda runtime's) is chosen by the
 * global setup and removed at teardown. A run that never asks for bundles never builds them.
 */
export async function buildTestBundles(): Promise<TestBundles> {
  const dir = inject('bundlesDir');
  const done = (reports: BundleReport[]): TestBundles => ({
    dir,
    bundles: new Map(reports.map((bundle) => [bundle.name, bundle])),
    remove: () => {},
  });
  const existing = readReport(dir);
  if (existing) return done(existing);
  let builder = false;
  // The lock's parent first: without it the mkdir below fails as if another worker held the lock, and every
  // worker waits for a build nobody runs (a fresh clone has no node_modules/.cache).
  mkdirSync(dirname(dir), { recursive: true });
  try {
    mkdirSync(`${dir}.lock`);
    builder = true;
  } catch (error) {
    // EEXIST: another worker builds; wait for its report below.
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  if (builder) {
    const { bundles } = await buildFunctions({ outdir: dir });
    // Written whole, then renamed: a waiting worker never reads half a report.
    writeFileSync(join(dir, `${REPORT}.tmp`), JSON.stringify(bundles));
    renameSync(join(dir, `${REPORT}.tmp`), join(dir, REPORT));
    return done(bundles);
  }
  const started = Date.now();
  for (;;) {
    const reports = readReport(dir);
    if (reports) return done(reports);
    if (Date.now() - started > BUILD_WAIT_MS) throw new Error(`no bundles in ${dir} after ${BUILD_WAIT_MS} ms`);
    await sleep(100);
  }
}
