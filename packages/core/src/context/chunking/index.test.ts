import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitIntoChunks } from './index.ts';

describe('splitIntoChunks', () => {
  it('partitions any text: chunks joined give the text back, none empty, none too long', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', '.', '😀', 'é'), maxLength: 3000 }),
        fc.integer({ min: 2, max: 400 }),
        (text, maxChars) => {
          const chunks = splitIntoChunks(text, { maxChars, minChars: Math.floor(maxChars / 3) });
          expect(chunks.join('')).toBe(text);
          for (const chunk of chunks) {
            expect(chunk.length).toBeGreaterThan(0);
            expect(chunk.length).toBeLessThanOrEqual(maxChars);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('keeps surrogate pairs whole', () => {
    const text = '😀'.repeat(50);
    const chunks = splitIntoChunks(text, { maxChars: 7, minChars: 1 });
    for (const chunk of chunks) expect(chunk).toMatch(/^(?:\uD83D\uDE00)+$/);
  });

  it('prefers paragraph breaks over sentence and word breaks', () => {
    const first = `${'word '.repeat(30)}end.\n\n`;
    const second = 'Next paragraph. '.repeat(10);
    const chunks = splitIntoChunks(first + second, { maxChars: 200, minChars: 50 });
    expect(chunks[0]).toBe(first);
  });

  it('returns no chunk for empty text and one for short text', () => {
    expect(splitIntoChunks('')).toEqual([]);
    expect(splitIntoChunks('hello world')).toEqual(['hello world']);
  });
});
