import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createScalarDocs } from '@memgate/http/docs/scalar';

/** `/docs` for the local server: Scalar, its browser bundle read from node_modules (no CDN, works offline). */
export function createLocalDocs() {
  return createScalarDocs({
    script: async () => {
      // The package exports no path to its browser build; it sits next to the resolved entry (dist/index.js).
      const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
      return readFile(join(dirname(entry), 'browser', 'standalone.js'), 'utf8');
    },
  });
}
