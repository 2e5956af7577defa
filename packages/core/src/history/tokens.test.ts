import fc from 'fast-check';
import { countTokens as countWithoutCache } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { PIECE_CHARS, piecesOf, utf8Length } from './pieces.ts';
import { countTokens, createTokenCounter, createTokenMeter, EXACT_TOKENS, truncateToTokens } from './tokens.ts';

const plain = { disallowedSpecial: new Set<string>() };

describe('token counting', () => {
  it('counts exactly as gpt-tokenizer does, the first time and when the text comes again', () => {
    const texts = ['', 'Hello, world!', 'Was the quarterly invoice paid?', '日本語のテキスト 🙂', 'a'.repeat(5_000)];
    for (const text of [...texts, ...texts]) expect(countTokens(text), text.slice(0, 20)).toBe(countWithoutCache(text));
  });

  it('counts prose in pieces exactly as gpt-tokenizer counts it whole (property)', () => {
    const word = fc.stringMatching(/^[A-Za-zÀ-ÿ0-9'’.,;:!?()"\-/]{1,24}$/);
    const gap = fc.constantFrom(' ', ' ', ' ', '  ', '\n', '\n\n', ' \n', '\t', ', ', '. ');
    const prose = fc.array(fc.tuple(word, gap), { minLength: 1, maxLength: 120 }).map((parts) => parts.flat().join(''));
    fc.assert(
      fc.property(prose, (text) => {
        expect([...piecesOf(text)].join('')).toBe(text);
        expect(createTokenCounter()(text)).toBe(countWithoutCache(text, plain));
      }),
      { numRuns: 300 },
    );
  });

  it('hands the tokenizer at most PIECE_CHARS at a time: a 120,000-letter word costs linear work', () => {
    const given: string[] = [];
    const count = createTokenCounter({
      count: (piece) => {
        given.push(piece);
        return countWithoutCache(piece, plain);
      },
    });
    const tokens = count('a'.repeat(120_000));
    expect(Math.max(...given.map((piece) => piece.length))).toBeLessThanOrEqual(PIECE_CHARS);
    expect(given.join('').length).toBe(120_000);
    // gpt-tokenizer counts 12,000 a's exactly (quadratic, but small); ten times that, cut in pieces, stays within 1%.
    expect(tokens / (10 * countWithoutCache('a'.repeat(12_000)))).toBeCloseTo(1, 2);
  });

  it('counts text that spells a special token as plain text instead of throwing', () => {
    expect(countTokens('see <|endoftext|> here')).toBe(countWithoutCache('see <|endoftext|> here', plain));
    const cut = truncateToTokens('<|endoftext|> and more words after it', 3);
    expect('<|endoftext|> and more words after it'.startsWith(cut)).toBe(true);
    expect(countWithoutCache(cut, plain)).toBe(3);
  });

  it('truncates to a token limit piece by piece', () => {
    const text = 'The quarterly invoice was paid in March. '.repeat(50);
    const cut = truncateToTokens(text, 20);
    expect(text.startsWith(cut)).toBe(true);
    expect(countWithoutCache(cut, plain)).toBeLessThanOrEqual(20);
    expect(countWithoutCache(cut, plain)).toBeGreaterThanOrEqual(18);
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

describe('token meter (one pass over a request)', () => {
  const words = (n: number) => Array.from({ length: n }, (_, i) => `w${i.toString(36)}q`).join(' ');
  const SENTENCES = [
    'Employees get thirty days of paid leave every year.',
    'Requests go to the team lead, who answers within two working days.',
    'Unused days carry over until the end of March; after that they lapse.',
  ];
  const prose = (n: number) => Array.from({ length: n }, (_, i) => SENTENCES[i % SENTENCES.length]).join(' ');

  it('reports (usage, tokens saved) from an estimate, never running the tokenizer', async () => {
    let counted = 0;
    const meter = createTokenMeter({
      counter: createTokenCounter(),
      count: (piece) => {
        counted += 1;
        return countWithoutCache(piece, plain);
      },
    });
    for (const text of [prose(100), prose(50_000)]) {
      const reported = await meter.count(text);
      const exact = countWithoutCache(text, plain);
      expect(reported / exact).toBeGreaterThan(0.8);
      expect(reported / exact).toBeLessThan(1.25);
    }
    expect(counted).toBe(0);
  });

  it('decides exactly within its allowance, then on an upper bound, so a budget is never overrun', async () => {
    const first = words(50);
    const roomy = createTokenMeter({ ...EXACT_TOKENS, counter: createTokenCounter() });
    expect(await roomy.countUpTo(first, Number.POSITIVE_INFINITY)).toBe(countWithoutCache(first, plain));
    const meter = createTokenMeter({ ...EXACT_TOKENS, allowance: 10, counter: createTokenCounter() });
    expect(await meter.countUpTo(first, Number.POSITIVE_INFINITY)).toBeGreaterThan(countWithoutCache(first, plain));
    const text = words(2_000); // the allowance is spent
    const bound = await meter.countUpTo(text, Number.POSITIVE_INFINITY);
    expect(bound).toBe(utf8Length(text));
    expect(bound).toBeGreaterThanOrEqual(countWithoutCache(text, plain));
  });

  it('stops a decision count early once past the limit', async () => {
    let counted = 0;
    const meter = createTokenMeter({
      counter: createTokenCounter(),
      count: (piece) => {
        const tokens = countWithoutCache(piece, plain);
        counted += tokens;
        return tokens;
      },
    });
    expect(await meter.countUpTo(words(20_000), 100)).toBeGreaterThan(100);
    expect(counted).toBeLessThan(100 + PIECE_CHARS);
  });

  it('gives the event loop back while it counts or estimates', async () => {
    for (const kind of ['countUpTo', 'count'] as const) {
      let immediateRan = false;
      setImmediate(() => {
        immediateRan = true;
      });
      let ranBeforeLastPiece = false;
      const spy = (piece: string) => {
        ranBeforeLastPiece = immediateRan;
        return countWithoutCache(piece, plain);
      };
      const meter = createTokenMeter({ sliceMs: 0, counter: createTokenCounter(), count: spy, estimate: spy });
      await (kind === 'count' ? meter.count(words(500)) : meter.countUpTo(words(500), Number.POSITIVE_INFINITY));
      expect(ranBeforeLastPiece, kind).toBe(true);
    }
  });
});
