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
type TokenizerApi = Pick<Encoding, 'countTokens' | 'encode' | 'decode'>;

/** The o200k_base encoder over a compressed table that `readTable` returns, built on the first call. */
export function lazyEncoding(readTable: () => Buffer): TokenizerApi {
  let encoding: Encoding | undefined;
  const encoder = (): Encoding => {
    if (!encoding) {
      const ranks = JSON.parse(brotliDecompressSync(readTable()).toString('utf8')) as (string | number[])[];
      encoding = GptEncoding.getEncodingApi('o200k_base', () => ranks);
    }
    return encoding;
  };
  return {
    countTokens: (...args) => encoder().countTokens(...args),
    encode: (...args) => encoder().encode(...args),
    decode: (...args) => encoder().decode(...args),
  };
}

// What @memgate/core imports from 'gpt-tokenizer', reading the table beside the bundle. Pure, so that a bundle
// that never counts tokens drops it (and gets no table beside it).
const besideBundle = /* @__PURE__ */ lazyEncoding(() =>
  readFileSync(new URL(`./${TOKENIZER_TABLE_FILE}`, import.meta.url)),
);
export const countTokens: TokenizerApi['countTokens'] = (...args) => besideBundle.countTokens(...args);
export const encode: TokenizerApi['encode'] = (...args) => besideBundle.encode(...args);
export const decode: TokenizerApi['decode'] = (...args) => besideBundle.decode(...args);
