import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { brotliCompressSync, constants as zlib } from 'node:zlib';
import { build, type Metafile } from 'esbuild';
import { LLHTTP_WASM_FILE } from '../functions/runtime/llhttp-file.ts';
import { SCALAR_SCRIPT_FILE } from '../functions/runtime/scalar-file.ts';
import { TOKENIZER_ENCODER_FILE, TOKENIZER_TABLE_FILE } from '../functions/runtime/tokenizer.ts';
import { scalarStandalonePath } from '../packages/local/src/docs.ts';
import { FUNCTIONS_DIR, LLHTTP_READER, ROOT, slimDependencies } from './build-plugins.ts';

// Files a Lambda bundle reads from beside it on first use (SIDECARS), built once per version of what they come from.

/** Writes `cached` whole: test files build in parallel, each writes its own file, and the rename makes it appear. */
function writeWhole(cached: string, bytes: string | Buffer | Uint8Array): void {
  mkdirSync(dirname(cached), { recursive: true });
  const partial = partialOf(cached);
  writeFileSync(partial, bytes);
  renameSync(partial, cached);
}

const partialOf = (cached: string) => `${cached}.${process.pid}-${Math.random().toString(36).slice(2)}`;

/**
 * `content` compressed with brotli at its best setting (seconds for a few megabytes), cached at `cached` (per version
 * of what it comes from) and written whole.
 */
async function compressedOnce(cached: string, content: () => Promise<string | Buffer>): Promise<string> {
  if (existsSync(cached)) return cached;
  const compressed = brotliCompressSync(await content(), {
    params: {
      [zlib.BROTLI_PARAM_QUALITY]: 11,
      [zlib.BROTLI_PARAM_LGWIN]: 24,
      [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
    },
  });
  writeWhole(cached, compressed);
  return cached;
}

/** The tokenizer's table, compressed once per gpt-tokenizer version. */
export async function tokenizerTable(): Promise<string> {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'gpt-tokenizer', 'package.json'), 'utf8'));
  const cached = join(ROOT, 'node_modules', '.cache', 'memgate-tokenizer', `${version}-${TOKENIZER_TABLE_FILE}`);
  return compressedOnce(cached, async () => {
    const source = join(ROOT, 'node_modules', 'gpt-tokenizer', 'esm', 'bpeRanks', 'o200k_base.js');
    const { default: ranks } = (await import(pathToFileURL(source).href)) as { default: unknown[] };
    return JSON.stringify(ranks);
  });
}

/**
 * The encoder over that table (functions/runtime/tokenizer-encoder.ts), as a minified CommonJS file of its own: the
 * bundle `require`s it on its first exact count. Built once per gpt-tokenizer version and content of its entry.
 */
export async function tokenizerEncoder(): Promise<string> {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'gpt-tokenizer', 'package.json'), 'utf8'));
  const entry = join(FUNCTIONS_DIR, 'runtime', 'tokenizer-encoder.ts');
  const digest = createHash('sha256').update(readFileSync(entry)).digest('hex').slice(0, 12);
  const cached = join(
    ROOT,
    'node_modules',
    '.cache',
    'memgate-tokenizer',
    `${version}-${digest}-${TOKENIZER_ENCODER_FILE}`,
  );
  if (existsSync(cached)) return cached;
  const partial = partialOf(cached);
  await build({
    absWorkingDir: ROOT,
    entryPoints: [entry],
    outfile: partial,
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
    // gpt-tokenizer's other modules build tables at load: dropped, as GptEncoding does not use them.
    plugins: [slimDependencies],
  });
  renameSync(partial, cached);
  return cached;
}

/** Scalar's browser bundle (4.3 MB), compressed once per @scalar/api-reference version (~0.9 MB). */
export async function scalarScript(): Promise<string> {
  const source = scalarStandalonePath();
  const { version } = JSON.parse(readFileSync(join(dirname(source), '..', '..', 'package.json'), 'utf8'));
  const cached = join(ROOT, 'node_modules', '.cache', 'memgate-scalar', `${version}-${SCALAR_SCRIPT_FILE}`);
  return compressedOnce(cached, async () => readFileSync(source));
}

/** undici's llhttp WebAssembly (SIMD) as a binary, from the base64 module undici ships it in. */
export async function llhttpWasm(): Promise<string> {
  const { version } = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'undici', 'package.json'), 'utf8'));
  const cached = join(ROOT, 'node_modules', '.cache', 'memgate-llhttp', `${version}-${LLHTTP_WASM_FILE}`);
  if (existsSync(cached)) return cached;
  const wasm = createRequire(import.meta.url)(
    join(ROOT, 'node_modules', 'undici', 'lib', 'llhttp', 'llhttp_simd-wasm.js'),
  );
  writeWhole(cached, wasm as Buffer);
  return cached;
}

/**
 * What a bundle reads from beside it on first use, by the module that reads it, and when: never at a cold start's
 * import, so the 1 MB budget (a cold-start budget) counts index.mjs and reports these apart. The tokenizer's files
 * are read by functions/runtime/tokenizer.ts, of which a bundle that never counts (the chat stream) keeps nothing.
 */
export const SIDECARS = [
  {
    reader: join(FUNCTIONS_DIR, 'runtime', 'tokenizer.ts'),
    file: TOKENIZER_TABLE_FILE,
    source: tokenizerTable,
    readOn: 'the first exact token count (a history over its budget by upper bounds, an answer length limit)',
  },
  {
    reader: join(FUNCTIONS_DIR, 'runtime', 'tokenizer.ts'),
    file: TOKENIZER_ENCODER_FILE,
    source: tokenizerEncoder,
    readOn: 'the first exact token count, as the table',
  },
  {
    reader: LLHTTP_READER,
    file: LLHTTP_WASM_FILE,
    source: llhttpWasm,
    readOn: "undici's first upstream response",
  },
  {
    reader: join(FUNCTIONS_DIR, 'runtime', 'docs-app.ts'),
    file: SCALAR_SCRIPT_FILE,
    source: scalarScript,
    readOn: 'the first request for /docs/scalar.js',
  },
];
export const ON_DEMAND = new Set(SIDECARS.map((sidecar) => sidecar.file));

/** Puts each sidecar beside the bundles that contain the module that reads it. */
export async function copySidecars(metafile: Metafile): Promise<void> {
  for (const { reader, file: sidecar, source } of SIDECARS) {
    const input = relative(ROOT, reader);
    for (const [file, output] of Object.entries(metafile.outputs)) {
      if (!output.inputs[input]?.bytesInOutput) continue;
      copyFileSync(await source(), join(ROOT, file, '..', sidecar));
    }
  }
}
