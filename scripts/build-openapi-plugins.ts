import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Plugin } from 'esbuild';
import { FUNCTIONS_DIR } from './build-plugins.ts';

// Lambda build plugins for what only the OpenAPI document and MCP's tool list need. Every function's routes are
// written with @hono/zod-openapi (the document is generated from the same schemas), but only the docs function serves
// the document, and only the MCP function turns schemas into JSON Schema; the others validate requests and never read
// the schemas' OpenAPI metadata. Measured on context-add (563 -> 498 KB): instructions of a whole cold start with the
// bench's first event (valgrind, median of 3) 807 -> 783 M; 25 interleaved starts (load 7.7-10.8), paired medians:
// CPU -3.9 ms, wall -5.5 ms.

/** The functions that generate JSON Schema or the OpenAPI document, and keep zod's converters and zod-to-openapi. */
export const SCHEMA_DOCUMENT_FUNCTIONS: ReadonlySet<string> = new Set(['docs', 'mcp']);

/** The metadata-only stand-in for @asteasolutions/zod-to-openapi (functions/runtime/openapi-registry.ts). */
const OPENAPI_REGISTRY = join(FUNCTIONS_DIR, 'runtime', 'openapi-registry.ts');

/**
 * @asteasolutions/zod-to-openapi (~29 KB) → functions/runtime/openapi-registry.ts: `.openapi()` leaves a schema as
 * it is (the original clones it to carry the metadata, which validates the same), the registry records what is
 * registered, and the document generators throw. @hono/zod-openapi's routes, validators and hooks are unchanged.
 */
export const openApiMetadataOff: Plugin = {
  name: 'openapi-metadata-off',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^@asteasolutions\/zod-to-openapi$/ }, () => ({ path: OPENAPI_REGISTRY }));
  },
};

/** zod 4's JSON Schema conversion, both ways: reached only through toJSONSchema, fromJSONSchema and ~standard. */
const ZOD_JSON_SCHEMA =
  /[/\\]zod[/\\]v4[/\\](?:core[/\\](?:to-json-schema|json-schema-processors|json-schema-generator)|classic[/\\]from-json-schema)\.js$/;

/**
 * Each of zod's JSON Schema modules (~33 KB, one evaluated at import) as a module with the same exports, each of them
 * throwing when called: schemas are built and parse exactly as before (their conversion methods are closures over
 * these exports, called only when converting), and a conversion fails loudly instead of returning a wrong schema.
 * An export zod adds later and this misses fails the build (esbuild: no matching export), not a request.
 */
export const zodJsonSchemaOff: Plugin = {
  name: 'zod-json-schema-off',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: ZOD_JSON_SCHEMA }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      const names = [...source.matchAll(/^export (?:async )?(?:function\*?|const|let|class) (\w+)/gm)].map((m) => m[1]);
      const aliases = [...source.matchAll(/^export \{ (\w+) as (\w+) \};$/gm)].map(
        (m) => `export { ${m[1]} as ${m[2]} };`,
      );
      const stub = (name: string | undefined) =>
        name === 'allProcessors'
          ? `export const ${name} = {};`
          : name === 'JSONSchemaGenerator'
            ? `export class ${name} { constructor() { off(); } }`
            : // The `~standard` getter builds these two methods (not calls them) whenever a validator reads it.
              /^create\w+Method$/.test(name ?? '')
              ? `export const ${name} = () => off;`
              : `export const ${name} = off;`;
      const contents = [
        "const off = () => { throw new Error('zod JSON Schema conversion is left out of this Lambda bundle'); };",
        ...names.map(stub),
        ...aliases,
      ].join('\n');
      return { contents, loader: 'js' };
    });
  },
};
