import { countTokens as countWithoutCache } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { countTokens, createTokenCounter } from './tokens.ts';

describe('token counting', () => {
  it('counts exactly as gpt-tokenizer does, the first time and when the text comes again', () => {
    const texts = ['', 'Hello, world!', 'Was the quarterly invoice paid?', '日本語のテキスト 🙂', 'a'.repeat(5_000)];
    for (const text of [...texts, ...texts]) expect(countTokens(text), text.slice(0, 20)).toBe(countWithoutCache(text));
  });

  it('counts a repeated text once, and forgets the least recently used texts beyond its character budget', () => {
    const seen: string[] = [];
    const countLength = (text: string) => {
      seen.push(text);
      return text.length;
    };
    const count = createTokenCounter({ count: countLength, maxChars: 10 });
    count('aaaa');
    count('bbbb');
    count('aaaa'); // remembered, and now the most recently used
    count('cccc'); // 12 characters: 'bbbb', the least recently used, goes
    count('aaaa');
    count('bbbb');
    expect(seen).toEqual(['aaaa', 'bbbb', 'cccc', 'bbbb']);
    // A text longer than the whole budget is counted every time and never kept.
    count('x'.repeat(11));
    count('x'.repeat(11));
    expect(seen.slice(4)).toEqual(['x'.repeat(11), 'x'.repeat(11)]);
  });
});
