import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseJsonInSlices } from './json-slices.ts';

// Small pieces here, so that short texts take every path a 6 MB body takes with 64 KB ones.

/** JSON.parse's answer: the value, or that it threw a SyntaxError. */
function reference(text: string): { value?: unknown; error?: true } {
  try {
    return { value: JSON.parse(text) };
  } catch {
    return { error: true };
  }
}

async function sliced(text: string, piece: number): Promise<{ value?: unknown; error?: true }> {
  try {
    return { value: await parseJsonInSlices(text, 64, { wholeChars: 0, pieceChars: piece }) };
  } catch (error) {
    expect(error).toBeInstanceOf(SyntaxError);
    return { error: true };
  }
}

/** Same value, own keys in the same order (`toStrictEqual` alone does not compare the order). */
function expectSame(got: { value?: unknown; error?: true }, want: { value?: unknown; error?: true }) {
  expect(got).toStrictEqual(want);
  expect(JSON.stringify(got.value)).toBe(JSON.stringify(want.value));
}

const spaced = (text: string) => text.replace(/[,:[{]/g, (mark) => `${mark} \n\t`);

describe('parseJsonInSlices (JSON.parse in pieces)', () => {
  it('gives what JSON.parse gives, for any JSON, in pieces of any size', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue({ maxDepth: 5 }),
        fc.integer({ min: 2, max: 40 }),
        fc.boolean(),
        async (value, piece, space) => {
          const text = space ? spaced(JSON.stringify(value)) : JSON.stringify(value, null, 1);
          expectSame(await sliced(text, piece), reference(text));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('refuses what JSON.parse refuses: any one character changed, added or taken away', async () => {
    const marks = [',', ':', '[', ']', '{', '}', '"', '\\', ' ', 'x', ''];
    await fc.assert(
      fc.asyncProperty(
        fc.jsonValue({ maxDepth: 4 }),
        fc.nat(),
        fc.constantFrom(...marks),
        fc.boolean(),
        fc.integer({ min: 2, max: 20 }),
        async (value, at, mark, replace, piece) => {
          const text = JSON.stringify(value);
          const cut = at % (text.length + 1);
          const changed = text.slice(0, cut) + mark + text.slice(cut + (replace ? 1 : 0));
          expectSame(await sliced(changed, piece), reference(changed));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it.each([
    ['a trailing comma', '[1,2,3,]'],
    ['a leading comma', '[,1,2,3]'],
    ['a member without a value', '{"a":1,"b":[1,2,3,4],"c"}'],
    ['a key that is not a string', '{"a":1,2:[1,2,3,4,5,6]}'],
    ['brackets that do not match', '{"a":[1,2,3,4,5,6,7]]'],
    ['text after the value', '[1,2,3,4,5,6,7] x'],
    ['a string left open', '["abcdefgh","ijk]'],
  ])('refuses %s', async (_, text) => {
    expect(reference(text)).toEqual({ error: true });
    await expect(parseJsonInSlices(text, 64, { wholeChars: 0, pieceChars: 4 })).rejects.toBeInstanceOf(SyntaxError);
  });

  it('keeps __proto__ an own member and the last of a repeated key, as JSON.parse does', async () => {
    const text = '{"__proto__":{"polluted":[1,2,3,4,5]},"a":[1,2,3,4,5,6],"b":1,"a":[7,8,9,10,11,12]}';
    const value = (await parseJsonInSlices(text, 64, { wholeChars: 0, pieceChars: 8 })) as Record<string, unknown>;
    expect(Object.getPrototypeOf(value)).toBe(Object.prototype);
    expect(Object.keys(value)).toEqual(['__proto__', 'a', 'b']);
    expect(value.a).toEqual([7, 8, 9, 10, 11, 12]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expectSame({ value }, reference(text));
  });

  it('reads a large container nested deeper than `levels` as null (a message refused as too deep)', async () => {
    const text = '{"id":7,"x":[[[[1,2,3,4,5,6,7,8]]]]}';
    expect(await parseJsonInSlices(text, 2, { wholeChars: 0, pieceChars: 8 })).toEqual({ id: 7, x: [null] });
  });
});
