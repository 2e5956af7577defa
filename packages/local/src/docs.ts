import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createScalarDocs } from '@memgate/http/docs/scalar';

/** Where Scalar's browser bundle sits: the package exports no path to it; it is next to the resolved entry. */
export function scalarStandalonePath(): string {
  const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
  return join(dirname(entry), 'browser', 'standalone.js');
}

/** `/docs` for the local server: Scalar, its browser bundle read from node_modules (no CDN, works offline). */
export function createLocalDocs() {
  return createScalarDocs({ script: async () => ({ text: await readFile(scalarStandalonePath(), 'utf8') }) });
}
