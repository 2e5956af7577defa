import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';

// memgate imports a few files inside two packages that declare no `exports` (their "private" files): the Pinecone
// SDK's data-plane and inference modules (so a Lambda bundle skips the SDK's barrel) and undici's request, Agent and
// connector (loaded on first use in the Lambda bundles, functions/runtime/undici-lazy.ts). Such paths may move in any
// release, so both packages are pinned exactly, and this test fails on an upgrade that breaks what memgate uses.
const require = createRequire(new URL('../../packages/adapters/package.json', import.meta.url));
const adapters = JSON.parse(readFileSync(new URL('../../packages/adapters/package.json', import.meta.url), 'utf8')) as {
  dependencies: Record<string, string>;
};

const DEEP_IMPORTS = {
  '@pinecone-database/pinecone': {
    'dist/data/index.js': { Index: 'function' },
    'dist/inference/index.js': { Inference: 'function' },
  },
  undici: {
    'lib/api/api-request.js': { '': 'function' },
    'lib/dispatcher/agent.js': { '': 'function' },
    'lib/core/connect.js': { '': 'function' },
  },
} as const;

describe('deep imports into packages without exports', () => {
  for (const [pkg, files] of Object.entries(DEEP_IMPORTS)) {
    it(`${pkg}: pinned exactly, and every file memgate imports still exports what it uses`, () => {
      const installed = (require(`${pkg}/package.json`) as { version: string }).version;
      expect(adapters.dependencies[pkg], 'an exact version in packages/adapters/package.json').toBe(installed);
      for (const [file, names] of Object.entries(files)) {
        const loaded = require(`${pkg}/${file}`) as Record<string, unknown> & ((...args: never[]) => unknown);
        for (const [name, type] of Object.entries(names)) {
          // '' is the module itself (undici's request, agent and connector files export one function each).
          expect(typeof (name === '' ? loaded : loaded[name]), `${pkg}/${file} ${name || 'module.exports'}`).toBe(type);
        }
      }
    });
  }
});
