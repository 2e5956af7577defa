import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_TOKEN_SCOPE, tokenClaimsProblem } from './token.ts';

describe('tokenClaimsProblem (what `npm run token` refuses to sign)', () => {
  it('accepts what the server accepts', () => {
    expect(tokenClaimsProblem({ user: 'alice' })).toBeUndefined();
    expect(tokenClaimsProblem({ user: 'alice@example.com', scope: DEFAULT_TOKEN_SCOPE })).toBeUndefined();
    expect(tokenClaimsProblem({ user: 'alice', scope: 'context:read  context:admin' })).toBeUndefined();
  });

  it.each([
    ['context:raed', "unknown scope 'context:raed'"],
    ['context:read,context:write', "unknown scope 'context:read,context:write'"],
    ['context:read write', "unknown scope 'write'"],
  ])('refuses the scope %s, naming it and the scopes there are', (scope, said) => {
    const problem = tokenClaimsProblem({ user: 'alice', scope });
    expect(problem).toContain(said);
    expect(problem).toContain('context:read context:write context:delete chat proxy context:admin');
  });

  it.each(['alice smith', '', 'a'.repeat(129), 'bob/1'])('refuses the user id %j', (user) => {
    expect(tokenClaimsProblem({ user })).toMatch(/not a usable user id/);
  });
});

describe('npm run token', () => {
  it('exits 2 with the reason and prints no token for a scope no route checks', () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'memgate-token-'));
    const run = () =>
      execFileSync(
        process.execPath,
        ['--import', 'tsx', 'packages/local/src/token-cli.ts', '--user', 'alice', '--scope', 'context:raed'],
        {
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
          env: { ...process.env, DATA_DIR: dataDir },
        },
      );
    let failure: { status?: number; stdout?: string; stderr?: string } = {};
    let written: string[];
    try {
      run();
    } catch (error) {
      failure = error as typeof failure;
    } finally {
      written = readdirSync(dataDir);
      rmSync(dataDir, { recursive: true, force: true });
    }
    expect(failure.status).toBe(2);
    expect(failure.stdout).toBe('');
    expect(failure.stderr).toContain("unknown scope 'context:raed'");
    // Refused before anything is read or written: no secret created in DATA_DIR.
    expect(written).toEqual([]);
  });
});
