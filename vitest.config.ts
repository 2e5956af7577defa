import { defineConfig } from 'vitest/config';

const LAMBDA_TESTS = 'test/lambda/**/*.test.ts';

export default defineConfig({
  test: {
    exclude: ['**/node_modules/**', 'dist/**'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 20_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Two cores: more workers than that only adds contention.
    poolOptions: { forks: { maxForks: 2, minForks: 1 } },
    projects: [
      // Everything that runs on the machine's Node: core, adapters, HTTP, the local server, build and infra.
      {
        extends: true,
        test: { name: 'unit', include: ['packages/*/src/**/*.test.ts', 'test/**/*.test.ts'], exclude: [LAMBDA_TESTS] },
      },
      // The built bundles as Lambda runs them: `npm test` runs this project on the Lambda runtime's Node major
      // (scripts/lambda-node.mjs); plain `vitest` runs it on this Node.
      { extends: true, test: { name: 'lambda', include: [LAMBDA_TESTS] } },
    ],
  },
});
