import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';

// A supervisor (systemd, a container runtime, a process manager) stops `npm start` by sending SIGTERM to the npm
// process alone, not to its process group. npm passes the signal to the script's shell; the server must stop with it
// instead of running on, orphaned, with DynamoDB Local and the data directory's lock.
const root = join(import.meta.dirname, '..');
const cleanups: (() => void)[] = [];

function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    children = execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    // none
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

describe('npm start under a supervisor', () => {
  it('stops the server, DynamoDB Local and all, when only the npm process gets SIGTERM', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'memgate-npm-start-'));
    const { DYNAMODB_ENDPOINT: _ignored, ...env } = process.env;
    const npm = spawn('npm', ['start', '--silent'], {
      cwd: root,
      env: { ...env, PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let tree: number[] = [];
    cleanups.push(() => {
      for (const pid of tree) if (alive(pid)) process.kill(pid, 'SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    });
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      npm.stdout.on('data', (chunk) => {
        output += String(chunk);
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match?.[1]) resolve(match[1]);
      });
      npm.stderr.on('data', (chunk) => {
        output += String(chunk);
      });
      npm.once('exit', (code) => reject(new Error(`npm start exited with ${code}: ${output}`)));
    });
    expect((await fetch(`${url}/health`)).status).toBe(200);
    tree = descendants(npm.pid as number);
    expect(tree.length).toBeGreaterThanOrEqual(2); // the server and DynamoDB Local, at least

    npm.kill('SIGTERM');
    for (let waited = 0; waited < 30_000 && tree.some(alive); waited += 200) await sleep(200);
    expect(tree.filter(alive)).toEqual([]);
    await expect(fetch(`${url}/health`)).rejects.toThrow();
  }, 90_000);
});
