import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { MALLOC_SETTINGS, NODE_FLAGS, serverEnvironment } from './start.mjs';

describe('npm start: the server process environment', () => {
  it('carries the allocator settings that return freed memory to the system, unless set otherwise', () => {
    expect(serverEnvironment({ PORT: '8787' })).toEqual({ PORT: '8787', MALLOC_MMAP_THRESHOLD_: '65536' });
    expect(serverEnvironment({ MALLOC_MMAP_THRESHOLD_: '131072' }).MALLOC_MMAP_THRESHOLD_).toBe('131072');
    expect(Object.keys(MALLOC_SETTINGS)).toEqual(['MALLOC_MMAP_THRESHOLD_']);
  });

  it('starts Node with a heap growing factor that collects old garbage after +50%, a flag this Node accepts', () => {
    expect(NODE_FLAGS).toEqual(['--heap-growing-percent=50']);
    // An unknown flag stops Node with "bad option": the server would not start at all.
    const run = spawnSync(process.execPath, [...NODE_FLAGS, '-e', 'process.stdout.write("ok")'], { encoding: 'utf8' });
    expect({ status: run.status, out: run.stdout, err: run.stderr }).toEqual({ status: 0, out: 'ok', err: '' });
  });
});
