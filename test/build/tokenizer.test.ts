import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { countTokens, decode, encode } from 'gpt-tokenizer';
import { beforeAll, describe, expect, it } from 'vitest';
import { lazyEncoding } from '../../functions/runtime/tokenizer.ts';
import type { encodingOf } from '../../functions/runtime/tokenizer-encoder.ts';
import { tokenizerEncoder, tokenizerTable } from '../../scripts/build.ts';

// The Lambda bundles count tokens with functions/runtime/tokenizer.ts: the encoder file and the compressed table the
// build ships beside them (tokenizer-encoder.cjs, o200k_base.json.br). It must count, encode and decode exactly as
// gpt-tokenizer does everywhere else.
let lambda: ReturnType<typeof lazyEncoding>;
let reads = 0;
let loads = 0;
beforeAll(async () => {
  const [table, encoder] = await Promise.all([tokenizerTable(), tokenizerEncoder()]);
  lambda = lazyEncoding(
    () => {
      reads += 1;
      return readFileSync(table);
    },
    () => {
      loads += 1;
      return createRequire(import.meta.url)(encoder) as { encodingOf: typeof encodingOf };
    },
  );
}, 120_000);

const TEXTS = [
  'Employees get thirty days of paid leave every year.',
  'Ünïcödé, 中文分词, עברית, emoji 👩‍👩‍👧‍👦 and math ∑∫√',
  '    indented code\n\tfunction f(x) { return x ** 2; }\n\n\n',
  'https://example.com/a?b=c&d=%20e#f — “quotes” and ‘apostrophes’',
  'a'.repeat(2000),
  '',
];

describe('the Lambda tokenizer', () => {
  it('reads its table and loads its encoder file only when it first counts', () => {
    expect([reads, loads]).toEqual([0, 0]);
    lambda.countTokens('hello');
    lambda.countTokens('again');
    expect([reads, loads]).toEqual([1, 1]);
  });

  it('counts, encodes and decodes exactly as gpt-tokenizer (o200k_base)', () => {
    for (const text of TEXTS) {
      expect(lambda.countTokens(text), text.slice(0, 20)).toBe(countTokens(text));
      expect(lambda.encode(text), text.slice(0, 20)).toEqual(encode(text));
      expect(lambda.decode(encode(text)), text.slice(0, 20)).toBe(decode(encode(text)));
    }
  });
});
