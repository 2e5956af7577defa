import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { tooDeepFieldOf } from './json-depth.ts';

/** The reference: the depth of a parsed value (the top level is 1), per top-level field. */
function depthOf(value: unknown): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  for (const child of Object.values(value)) deepest = Math.max(deepest, depthOf(child));
  return 1 + deepest;
}

const nested = (depth: number) => `${'['.repeat(depth)}"x"${']'.repeat(depth)}`;

describe('tooDeepFieldOf (the depth of a JSON body, read from its text)', () => {
  it('agrees with the depth of the parsed value, and names a field that is too deep', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 6 }), { maxKeys: 4 }),
        fc.integer({ min: 1, max: 6 }),
        async (body, max) => {
          const text = JSON.stringify(body, null, Math.random() < 0.5 ? 0 : 2);
          const field = await tooDeepFieldOf(text, max);
          const tooDeep = Object.entries(body).filter(([, value]) => 1 + depthOf(value) > max);
          if (tooDeep.length === 0) expect(field).toBeUndefined();
          else expect(tooDeep.map(([key]) => key)).toContain(field);
        },
      ),
    );
  });

  it('names the key as parsed (escapes), ignores brackets inside strings, and counts top-level array elements', async () => {
    expect(await tooDeepFieldOf(`{"a\\"b":${nested(3)}}`, 3)).toBe('a"b');
    expect(await tooDeepFieldOf(`{"text":"[[[[[[[[","ok":1}`, 2)).toBeUndefined();
    expect(await tooDeepFieldOf(`{"say \\\\":"{{{{","deep":{"x":${nested(2)}}}`, 3)).toBe('deep');
    expect(await tooDeepFieldOf(`[{"a":1},{"b":1},${nested(2)}]`, 2)).toBe('2');
    expect(await tooDeepFieldOf(nested(64), 64)).toBeUndefined();
    expect(await tooDeepFieldOf(`{"x":${nested(100_000)}}`, 64)).toBe('x');
  });

  it('gives the event loop back while it reads megabytes', async () => {
    const text = JSON.stringify({ messages: Array.from({ length: 100_000 }, () => ({ role: 'tool', content: 'ok' })) });
    let turns = 0;
    let counting = true;
    const count = () => {
      turns += 1;
      if (counting) setImmediate(count);
    };
    setImmediate(count);
    expect(await tooDeepFieldOf(text, 64)).toBeUndefined();
    counting = false;
    expect(text.length).toBeGreaterThan(3_000_000);
    expect(turns).toBeGreaterThanOrEqual(Math.floor(text.length / (256 * 1024)) - 1);
  });
});
