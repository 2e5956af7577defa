import { readFileSync } from 'node:fs';
import { countTokens } from 'gpt-tokenizer';
import { describe, expect, it } from 'vitest';
import { estimateTokens } from './estimate.ts';

const plain = { disallowedSpecial: new Set<string>() };
const file = (path: string) => readFileSync(new URL(`../../../../${path}`, import.meta.url), 'utf8');
/**
 * Slices of about `size` characters; a remainder under half of that joins the slice before it, so the samples do
 * not depend on where a file happens to end (a last line alone is a few tokens, where one token more is 25%).
 */
const slices = (text: string, size = 3_000) => {
  const count = Math.max(1, Math.round(text.length / size));
  return Array.from({ length: count }, (_, i) => text.slice(i * size, i === count - 1 ? undefined : (i + 1) * size));
};

/** Random lowercase letters, no spaces: what a pasted hash or an attack looks like. */
function randomLetters(length: number): string {
  let state = 7;
  let text = '';
  for (let index = 0; index < length; index += 1) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    text += String.fromCharCode(97 + ((state >>> 16) % 26));
  }
  return text;
}

const SAMPLES: Record<string, string[]> = {
  markdown: [...slices(file('docs/ARCHITECTURE.md')), ...slices(file('README.md'))],
  typescript: [...slices(file('packages/core/src/history/tokens.ts')), ...slices(file('scripts/build.ts'))],
  dialogue: [
    'User: Hey, did you get the tickets for Saturday?\nAssistant: Yes! Two seats, row 12. The show starts at 8:30 pm.\nUser: Great, I will pick you up at 7.',
  ],
  json: [JSON.stringify({ id: 'doc_1f3a', chunks: [1, 2, 3], metadata: { file_name: 'leave.md', size: 1234.5 } })],
  cyrillic: ['Сотрудники получают тридцать дней оплачиваемого отпуска каждый год. Запросы идут руководителю.'],
  letters: [randomLetters(127), `${randomLetters(40)} ${randomLetters(60)}`],
  chinese: ['中文分词是自然语言处理的基础任务之一。我们今天讨论的是带薪休假的政策，每年有三十天。'],
};

describe('estimateTokens', () => {
  it('comes within 25% of the exact o200k count on prose, Markdown, code, JSON and other scripts', () => {
    for (const [kind, texts] of Object.entries(SAMPLES)) {
      for (const text of texts) {
        const ratio = estimateTokens(text) / countTokens(text, plain);
        expect(ratio, kind).toBeGreaterThan(0.8);
        expect(ratio, kind).toBeLessThan(1.25);
      }
    }
  });

  it('is zero for empty text and grows with the text', () => {
    expect(estimateTokens('')).toBe(0);
    const text = SAMPLES.dialogue?.[0] as string;
    expect(estimateTokens(`${text}\n${text}`)).toBe(2 * estimateTokens(text));
  });
});

/** The estimate as first written: one regex over the text, a match (and its strings) per run. The scan must agree. */
function estimateByMatches(text: string): number {
  let tokens = 0;
  for (const [, word, digits, spaces, symbols] of text.matchAll(
    /(\s?\p{L}+)|(\p{N}{1,3})|(\s+)|([^\s\p{L}\p{N}]+)/gu,
  )) {
    if (word !== undefined) {
      const letters = word.length - (word.charCodeAt(0) <= 0x20 ? 1 : 0);
      if (/^\s?\p{Script=Latin}+$/u.test(word))
        tokens += letters <= 12 ? Math.ceil(letters / 9) : Math.ceil(letters / 2);
      else if (/[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/.test(word)) tokens += Math.ceil(letters / 1.3);
      else tokens += Math.ceil(letters / 5);
    } else if (digits !== undefined) tokens += 1;
    else if (spaces !== undefined) tokens += spaces.length > 1 ? 1 : 0;
    else if (symbols !== undefined) tokens += Math.ceil(symbols.length / 3);
  }
  return tokens;
}

describe('estimateTokens, scanned run by run', () => {
  it('counts what the one-regex reading counts, in every script and at every kind of boundary', () => {
    const pieces = [
      ' ',
      '  ',
      '\n',
      '\u00a0',
      '\u3000',
      'a',
      'é',
      'ß',
      'Ⅻ',
      '½',
      '٣',
      '7',
      '.',
      '!',
      '😀',
      '\ud800',
      '中',
      'カ',
      '한',
      'Я',
      '\u0301',
      '𝐀',
    ];
    let state = 11;
    for (let sample = 0; sample < 5_000; sample += 1) {
      let text = '';
      for (let length = sample % 30; length > 0; length -= 1) {
        state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
        text += pieces[(state >>> 8) % pieces.length];
      }
      expect(estimateTokens(text), JSON.stringify(text)).toBe(estimateByMatches(text));
    }
    for (const texts of Object.values(SAMPLES))
      for (const text of texts) expect(estimateTokens(text)).toBe(estimateByMatches(text));
  });
});
