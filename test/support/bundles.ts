import { randomUUID } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BundleReport, buildFunctions } from '../../scripts/build.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * Builds every Lambda bundle into a fresh directory under node_modules/.cache: inside the repo, so the bundles'
 * external `@aws-sdk/*` imports resolve from node_modules as they do from the Lambda runtime's, and under
 * node_modules, so the test runner hands them to Node's own loader untransformed. Call once per test file.
 */
export async function buildTestBundles(): Promise<{
  dir: string;
  bundles: Map<string, BundleReport>;
  remove(): void;
}> {
  const dir = join(ROOT, 'node_modules', '.cache', 'memgate-bundles', randomUUID().slice(0, 8));
  const { bundles } = await buildFunctions({ outdir: dir });
  return {
    dir,
    bundles: new Map(bundles.map((bundle) => [bundle.name, bundle])),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
