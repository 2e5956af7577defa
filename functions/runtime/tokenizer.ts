import { readFileSync } from 'node:fs';
import { brotliDecompressSync } from 'node:zlib';
import { GptEncoding } from 'gpt-tokenizer/GptEncoding';

/**
 * `gpt-tokenizer` as the Lambda bundles see it (scripts/build.ts puts this module in its place): the same o200k_base
 * encoder, built on the first call instead of at import. Its BPE table is 2.2 MB of JavaScript in the package; the
 * build ships it beside the bundle as brotli-compressed JSON (`o200k_base.json.br`, ~770 KB), and it is read only by
 * a function that counts tokens, when it first does.
 */
export const TOKENIZER_TABLE_FILE = 'o200k_base.json.br';

type Encoding = ReturnType<typeof GptEncoding.getEncodingApi>;
let encoding: Encoding | undefined;

function encoder(): Encoding {
  if (!encoding) {
    const table = brotliDecompressSync(readFileSync(new URL(`./${TOKENIZER_TABLE_FILE}`, import.meta.url)));
    const ranks = JSON.parse(table.toString('utf8')) as (string | number[])[];
    encoding = GptEncoding.getEncodingApi('o200k_base', () => ranks);
  }
  return encoding;
}

export const countTokens: Encoding['countTokens'] = (...args) => encoder().countTokens(...args);
export const encode: Encoding['encode'] = (...args) => encoder().encode(...args);
export const decode: Encoding['decode'] = (...args) => encoder().decode(...args);
