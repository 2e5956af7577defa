import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

/** Runs `npm start`'s entry with `env`; it is expected to refuse to start. */
function refusedStart(env: NodeJS.ProcessEnv): { status: number; stderr: string } {
  try {
    execFileSync(process.execPath, ['packages/local/src/start.mjs'], {
      cwd: root,
      env: { ...env, PORT: '0', DATA_DIR: mkdtempSync(join(tmpdir(), 'memgate-refused-')) },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    const failed = error as { status: number; stderr: string };
    return { status: failed.status, stderr: failed.stderr };
  }
  return { status: 0, stderr: '' };
}

describe('npm start refusing to start', () => {
  const { DYNAMODB_ENDPOINT: _ignored, ...env } = process.env;

  it('without java: says in one line what to install and exits non-zero', () => {
    const { status, stderr } = refusedStart({ ...env, PATH: '/nonexistent' });
    expect(status).not.toBe(0);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/Java 17\+.*DYNAMODB_ENDPOINT/);
  }, 30_000);

  it('with an AUTH_JWT_SECRET under 32 bytes: one line naming the variable, not its value', () => {
    const { status, stderr } = refusedStart({ ...env, AUTH_JWT_SECRET: 'guessable-secret' });
    expect(status).not.toBe(0);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/AUTH_JWT_SECRET: must be at least 32 bytes/);
    expect(stderr).not.toContain('guessable-secret');
  }, 30_000);
});
