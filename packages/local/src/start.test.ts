import { describe, expect, it } from 'vitest';
import { MALLOC_SETTINGS, serverEnvironment } from './start.mjs';

describe('npm start: the server process environment', () => {
  it('carries the allocator settings that return freed memory to the system, unless set otherwise', () => {
    expect(serverEnvironment({ PORT: '8787' })).toEqual({ PORT: '8787', MALLOC_MMAP_THRESHOLD_: '65536' });
    expect(serverEnvironment({ MALLOC_MMAP_THRESHOLD_: '131072' }).MALLOC_MMAP_THRESHOLD_).toBe('131072');
    expect(Object.keys(MALLOC_SETTINGS)).toEqual(['MALLOC_MMAP_THRESHOLD_']);
  });
});
