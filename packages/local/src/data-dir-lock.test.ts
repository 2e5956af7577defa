import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataDirInUseError, LOCK_FILE, lockDataDir } from './data-dir-lock.ts';

const freshDir = () => mkdtempSync(join(tmpdir(), 'memgate-lock-'));

describe('lockDataDir', () => {
  it('lets one holder at a time have a DATA_DIR, and the next one after release', () => {
    const dir = freshDir();
    const lock = lockDataDir(dir);
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
    expect(() => lockDataDir(dir)).toThrow(DataDirInUseError);
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    lockDataDir(dir).release();
  });

  it('refuses a DATA_DIR a live process holds, naming it and the file to delete, then takes it once it is gone', async () => {
    const dir = freshDir();
    const other = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' });
    try {
      writeFileSync(join(dir, LOCK_FILE), `${other.pid}\n`);
      expect(() => lockDataDir(dir)).toThrow(
        `DATA_DIR ${dir} is in use by process ${other.pid} (another \`npm start\` or \`npm run cleanup\`): stop it ` +
          `first, or delete ${join(dir, LOCK_FILE)} if that process is not memgate`,
      );
    } finally {
      const exited = new Promise((resolve) => other.once('exit', resolve));
      other.kill('SIGKILL');
      await exited;
    }
    const lock = lockDataDir(dir);
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8').trim()).toBe(String(process.pid));
    lock.release();
  });

  it('takes over a lock left by a process that died, or one with its own pid that it never took', () => {
    const dir = freshDir();
    const path = join(dir, LOCK_FILE);
    const dead = spawnSync(process.execPath, ['-e', 'process.pid'], { stdio: 'ignore' }).pid as number;
    expect(() => process.kill(dead, 0), 'the holder really is gone').toThrow();
    for (const [label, left] of [
      ['a dead holder', `${dead}\n`],
      // After a container restart the new process can get its predecessor's pid.
      ['its own pid, not taken by it', `${process.pid}\n`],
      ['not a pid', 'not a pid'],
    ] as const) {
      writeFileSync(path, left);
      const lock = lockDataDir(dir);
      // Taken over: the old holder's lock is replaced by one naming this process...
      expect(readFileSync(path, 'utf8'), label).toBe(`${process.pid}\n`);
      // ...which is held like any other: a second taker is refused while it lasts.
      expect(() => lockDataDir(dir), label).toThrow(DataDirInUseError);
      lock.release();
      expect(existsSync(path), label).toBe(false);
    }
  });

  it('does not remove a lock that another process holds by the time it releases', () => {
    const dir = freshDir();
    const lock = lockDataDir(dir);
    writeFileSync(join(dir, LOCK_FILE), '1\n'); // someone deleted ours and pid 1 (init, alive) took the DATA_DIR
    lock.release();
    expect(readFileSync(join(dir, LOCK_FILE), 'utf8').trim()).toBe('1');
  });
});
