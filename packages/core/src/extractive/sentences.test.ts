import { afterEach, describe, expect, it, vi } from 'vitest';
import { sentencesOf } from './select.ts';
import { splitSentences } from './sentences.ts';

const icu = new Intl.Segmenter('en', { granularity: 'sentence' });
const icuSentences = (text: string) => [...icu.segment(text)].map((part) => part.segment);

// Each of UAX #29's sentence rules, and what sits next to them.
const CASES = [
  'Employees get thirty days of paid leave every year. Requests go to the team lead.',
  'Version 3.14 is out. It fixes 2.0.1! Does it? Yes!! Really?! ok.',
  'The U.S. office opens at 9 a.m. and closes at 5 p.m. Visitors sign in.',
  'See e.g. the FAQ, etc. and then go on. Next sentence.',
  'He said "stop." Then he left. (It was late.) She stayed.',
  'Mr. Smith arrived. Dr. Jones too.',
  'Wait... what? No… yes.',
  'Line one\nLine two\r\nLine three\rLine four\u2029Line five',
  'Ends with a break.\n\nNew paragraph.  Two spaces.\tTab.',
  'Numbers: 1. first 2. Second 3) third.',
  'Quotes “inside.” and «guillemets.» After.',
  'Café au lait. Élan vital. ß is lower. İstanbul.',
  'Combining e\u0301. Next\u200d. Then 😀. Emoji end.',
  '日本語の文。次の文。Ascii after.',
  'Trailing spaces.   ',
  '   Leading spaces. x',
  'No terminator at all',
  '',
  '.',
  '?!',
  'a.B. c.D e.f',
  'end: "quote?" she asked; then: fine.',
];

describe('sentence boundaries', () => {
  it.each(CASES)('are the ones ICU finds: %j', (text) => {
    expect(splitSentences(text)).toEqual(icuSentences(text));
  });

  it('are the ones ICU finds on random mixes of letters, terminators, quotes, spaces and line breaks', () => {
    const pieces = [
      'a',
      'B',
      'z',
      'Q',
      '.',
      '!',
      '?',
      ' ',
      '\n',
      '\r\n',
      '"',
      ')',
      '(',
      ',',
      ';',
      ':',
      '-',
      '7',
      '…',
      'é',
      '\u0301',
      '日',
      '。',
      '«',
      '»',
      '”',
      'ß',
      '\t',
      '\u00a0',
      '...',
      'e.g.',
      'U.S.',
      'Mr. ',
      '😀',
    ];
    let seed = 11;
    const random = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed / 0x7fffffff;
    };
    for (let i = 0; i < 3000; i++) {
      let text = '';
      for (let j = Math.floor(random() * 24); j >= 0; j--) text += pieces[Math.floor(random() * pieces.length)];
      expect(splitSentences(text), JSON.stringify(text)).toEqual(icuSentences(text));
    }
  });

  it('trims sentences and drops empty ones for the responder', () => {
    expect(sentencesOf('  One.  Two?\n\n Three ')).toEqual(['One.', 'Two?', 'Three']);
  });
});

describe('the extractive responder', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  // Building ICU's first sentence segmenter costs ~10-15 ms of CPU: the first answer of a Lambda cold start.
  it('answers without building an ICU segmenter', async () => {
    const segmenter = vi.spyOn(Intl, 'Segmenter');
    vi.resetModules(); // a responder module as a cold start loads it, nothing built yet
    const { createExtractiveModel, formatContextMessage } = await import('./index.ts');
    const model = createExtractiveModel({ clock: () => new Date('2026-01-01T00:00:00Z') });
    const context = formatContextMessage([
      { fileName: 'hr.md', text: 'Leave is thirty days. Requests go to the lead.' },
    ]);
    const completion = await model.complete(
      {
        model: 'memgate/default',
        messages: [
          { role: 'system', content: context },
          { role: 'user', content: 'How many days of leave?' },
        ],
      },
      {},
    );
    expect(completion.choices[0]?.message.content).toBe('Leave is thirty days.');
    expect(segmenter).not.toHaveBeenCalled();
  });
});
