import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '..');

describe('npm start without java', () => {
  it('says in one line what to install and exits non-zero', () => {
    const { DYNAMODB_ENDPOINT: _ignored, ...env } = process.env;
    let status = 0;
    let stderr = '';
    try {
      execFileSync(process.execPath, ['--import', 'tsx', 'packages/local/src/main.ts'], {
        cwd: root,
        env: { ...env, PATH: '/nonexistent', PORT: '0', DATA_DIR: mkdtempSync(join(tmpdir(), 'memgate-nojava-')) },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      const failed = error as { status: number; stderr: string };
      status = failed.status;
      stderr = failed.stderr;
    }
    expect(status).not.toBe(0);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/Java 17\+.*DYNAMODB_ENDPOINT/);
  }, 30_000);
});
