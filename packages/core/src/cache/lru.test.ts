import { describe, expect, it } from 'vitest';
import { createLru } from './lru.ts';

describe('createLru', () => {
  it('drops the least recently used entry once over its bound', () => {
    const lru = createLru<string, number>({ maxWeight: 2 });
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1); // now the most recent
    lru.set('c', 3);
    expect([lru.get('a'), lru.get('b'), lru.get('c')]).toEqual([1, undefined, 3]);
  });

  it('bounds by weight, replaces a key in place and never keeps an entry heavier than the bound', () => {
    const lru = createLru<string, string>({ maxWeight: 10, weigh: (key) => key.length });
    lru.set('aaaa', 'x');
    lru.set('aaaa', 'y');
    lru.set('bbbb', 'z');
    expect(lru.get('aaaa')).toBe('y');
    lru.set('cccc', 'w'); // 12 > 10: 'bbbb', the least recent, goes
    expect([lru.get('aaaa'), lru.get('bbbb'), lru.get('cccc')]).toEqual(['y', undefined, 'w']);
    lru.set('k'.repeat(11), 'too heavy');
    expect(lru.get('k'.repeat(11))).toBeUndefined();
    expect(lru.get('aaaa')).toBe('y');
    lru.delete('aaaa');
    expect(lru.get('aaaa')).toBeUndefined();
  });
});
