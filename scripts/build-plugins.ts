import { readFile } from 'node:fs/promises';
import { builtinModules, createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Plugin } from 'esbuild';
import { WEB_CLASSES_GLOBAL } from '../functions/runtime/web/global-name.ts';

// The esbuild plugins of the Lambda build (scripts/build.ts): what each bundle leaves out or takes from elsewhere.

export const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)));
export const FUNCTIONS_DIR = join(ROOT, 'functions');
/** Installs the Headers, Request, Response and FormData the bundles use instead of Node's. */
const WEB_CLASSES_INSTALL = join(FUNCTIONS_DIR, 'runtime', 'web', 'install.ts');
/**
 * Each function's entry: the web classes' install module first (functions/runtime/web/install.ts), then the function.
 * esbuild's `define` (webClassesDefine) points the bundled code's Headers, Request, Response and FormData at them.
 * (esbuild's `inject` would do the same without a global, but it injects into CommonJS files too, which wraps the
 * classes in a lazy initialiser called from every one of the bundle's ~700 modules.)
 */
export const functionEntries: Plugin = {
  name: 'function-entries',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^lambda-entry:/ }, (args) => ({
      path: args.path.slice('lambda-entry:'.length),
      namespace: 'lambda-entry',
    }));
    pluginBuild.onLoad({ filter: /.*/, namespace: 'lambda-entry' }, (args) => ({
      contents: `import ${JSON.stringify(WEB_CLASSES_INSTALL)};\nexport * from ${JSON.stringify(join(FUNCTIONS_DIR, `${args.path}.ts`))};`,
      resolveDir: FUNCTIONS_DIR,
      loader: 'ts',
    }));
  },
};

/** The bundled code's names for the web classes, read from the object the install module sets on globalThis. */
export const webClassesDefine = Object.fromEntries(
  ['Headers', 'Request', 'Response', 'FormData'].map((name) => [name, `globalThis.${WEB_CLASSES_GLOBAL}.${name}`]),
);
/** The module that reads undici's llhttp WebAssembly from beside the bundle (a sidecar, scripts/build.ts). */
export const LLHTTP_READER = join(FUNCTIONS_DIR, 'runtime', 'llhttp-wasm.cjs');

// ESM bundles of CommonJS dependencies call `require` for Node built-ins; ESM has none, so give them one.
export const BANNER =
  "import { createRequire as __memgateRequire } from 'node:module';\nconst require = __memgateRequire(import.meta.url);";

/**
 * zod 4's `z` namespace re-exports every locale's messages (~280 KB of the bundle): bundle English only, the only
 * language the API answers in. (The product has one zod: the benchmarks' zod 3 lives in the bench workspace.)
 */
export const zodEnglishOnly: Plugin = {
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
 * - `gpt-tokenizer` (and core's history/tokenizer.ts, which requires it on first use) → functions/runtime/tokenizer.ts,
 *   the same o200k encoder built on first use from a compressed table;
 * - the MCP SDK's Ajv validator (~135 KB with ajv-formats and fast-uri): its server validates JSON Schemas only for
 *   elicitation, which memgate never asks for, and packages/http/src/mcp/server.ts always passes its own validator.
 */
export const slimDependencies: Plugin = {
  name: 'slim-dependencies',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /^gpt-tokenizer$/ }, () => ({
      path: join(FUNCTIONS_DIR, 'runtime', 'tokenizer.ts'),
    }));
    // Core's own lazy loader of it (a Node `require` on first use, which a bundle could not follow) gives way too.
    pluginBuild.onResolve({ filter: /^\.\/tokenizer\.ts$/ }, (args) =>
      /[/\\]core[/\\]src[/\\]history[/\\]tokens\.ts$/.test(args.importer)
        ? { path: join(FUNCTIONS_DIR, 'runtime', 'tokenizer.ts') }
        : undefined,
    );
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

/** functions/runtime/sdk-stream-checks.ts: the AWS SDK's stream checks without reading the `ReadableStream` global. */
const SDK_STREAM_CHECKS = join(FUNCTIONS_DIR, 'runtime', 'sdk-stream-checks.ts');
export const sdkStreamChecks: Plugin = {
  name: 'sdk-stream-checks',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /(?:[/\\]|^\.\/)(?:stream-type-check|isStreamingPayload)$/ }, (args) =>
      /[/\\]@smithy[/\\]core[/\\]dist-es[/\\]/.test(args.importer) ? { path: SDK_STREAM_CHECKS } : undefined,
    );
  },
};

/**
 * The MCP SDK's `types.js` builds ~170 zod schemas at import (~20 ms of CPU measured alone on Node 24), for every
 * message kind of the protocol, client side included; the server and transport memgate runs use a part of them. Each
 * top-level constant's initializer is wrapped in a pure IIFE (`/* @__PURE__ *\/ (() => init)()`): evaluated in the
 * same order as before when kept, and dropped by esbuild when nothing in the bundle reads it. (zod's registries only
 * gain descriptions: dropping an unused schema changes nothing a kept one does.)
 */
const MCP_TYPES = /[/\\]@modelcontextprotocol[/\\]sdk[/\\]dist[/\\]esm[/\\]types\.js$/;
export const mcpSchemasOnUse: Plugin = {
  name: 'mcp-schemas-on-use',
  setup(pluginBuild) {
    pluginBuild.onLoad({ filter: MCP_TYPES }, async (args) => {
      const { default: ts } = await import('typescript');
      const source = await readFile(args.path, 'utf8');
      const file = ts.createSourceFile(args.path, source, ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
      const edits: { at: number; text: string }[] = [];
      for (const statement of file.statements) {
        if (!ts.isVariableStatement(statement) || !(statement.declarationList.flags & ts.NodeFlags.Const)) continue;
        for (const declaration of statement.declarationList.declarations) {
          const init = declaration.initializer;
          if (!init || !ts.isCallExpression(init)) continue;
          edits.push({ at: init.getStart(file), text: '/* @__PURE__ */ (() => ' }, { at: init.getEnd(), text: ')()' });
        }
      }
      let contents = source;
      for (const { at, text } of edits.sort((a, b) => b.at - a.at)) {
        contents = `${contents.slice(0, at)}${text}${contents.slice(at)}`;
      }
      return { contents, loader: 'js', resolveDir: dirname(args.path) };
    });
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
export const credentialsFromEnvironment: Plugin = {
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
export const sdkFromRuntime: Plugin = {
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
 * Dynamic imports too: the AWS SDK's HTTP handler does `await import('node:http')` on its first request, and that
 * namespace's lazy getters load Node's whole undici (~35 ms).
 */
const BUILTIN = new RegExp(`^(?:node:)?(?:${builtinModules.map((name) => name.replace(/[/]/g, '\\/')).join('|')})$`);
/** `import('node:http')` (any built-in, as a string literal) in a dependency's source. */
const DYNAMIC_BUILTIN_IMPORT = /\bimport\(\s*(['"])([\w:/]+)\1\s*\)/g;
export const builtinsThroughRequire: Plugin = {
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
    // A dynamic import of a built-in becomes a `require` on first call, in place: the code reads the module's own
    // exports (`const { request } = await import('node:http')`, `mod.default ?? mod`), never a namespace of them.
    // (With code splitting, esbuild would make a chunk of it that exports only `default`.)
    pluginBuild.onLoad({ filter: /[/\\]node_modules[/\\].*\.[cm]?js$/ }, async (args) => {
      const source = await readFile(args.path, 'utf8');
      let found = false;
      const contents = source.replace(DYNAMIC_BUILTIN_IMPORT, (call, _quote, name: string) => {
        if (!BUILTIN.test(name)) return call;
        found = true;
        return `Promise.resolve().then(() => require(${JSON.stringify(name)}))`;
      });
      return found ? { contents, loader: 'js', resolveDir: dirname(args.path) } : undefined;
    });
  },
};

/**
 * A dependency's CommonJS module imported dynamically (the Pinecone SDK's Index and Inference, imported on first use:
 * packages/adapters/src/pinecone) is a lazy chunk; esbuild gives such a chunk only a `default` export, while the
 * importer reads named ones (`({ Index }) => ...`, as Node's own `import()` of CommonJS gives). A facade ES module
 * re-exports the module's names, read from the module itself at build time.
 */
export const commonJsChunks: Plugin = {
  name: 'commonjs-chunks',
  setup(pluginBuild) {
    pluginBuild.onResolve({ filter: /.*/ }, async (args) => {
      if (args.kind !== 'dynamic-import' || args.pluginData === 'facade' || BUILTIN.test(args.path)) return undefined;
      const resolved = await pluginBuild.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'facade',
      });
      if (resolved.errors.length > 0 || !/[/\\]node_modules[/\\].*\.c?js$/.test(resolved.path)) return resolved;
      let names: string[];
      try {
        names = Object.keys(createRequire(resolved.path)(resolved.path) as object);
      } catch {
        return resolved; // an ES module: its chunk exports its own names
      }
      return { path: resolved.path, namespace: 'commonjs-facade', pluginData: names };
    });
    pluginBuild.onLoad({ filter: /.*/, namespace: 'commonjs-facade' }, (args) => {
      const names = (args.pluginData as string[]).filter(
        (name) => /^[A-Za-z_$][\w$]*$/.test(name) && name !== 'default',
      );
      return {
        contents: `import * as module from ${JSON.stringify(args.path)};\nexport const { ${names.join(', ')} } = module;`,
        loader: 'js',
        resolveDir: dirname(args.path),
      };
    });
  },
};
