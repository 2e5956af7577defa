import type { encodingOf } from './tokenizer-encoder.ts';

/**
 * `gpt-tokenizer` as the Lambda bundles see it (scripts/build.ts puts this module in its place): the same o200k_base
 * encoder, built on the first call instead of at import. Its BPE table is 2.2 MB of JavaScript in the package; the
 * build ships it beside the bundle as brotli-compressed JSON (`o200k_base.json.br`, ~770 KB), and the encoder that
 * reads it as a CommonJS file (`tokenizer-encoder.cjs`, functions/runtime/tokenizer-encoder.ts): both are read only
 * by a function that counts tokens, when it first does. Counting is synchronous, hence `require` rather than a lazy
 * chunk's `import()`.
 */
export const TOKENIZER_TABLE_FILE = 'o200k_base.json.br';
export const TOKENIZER_ENCODER_FILE = 'tokenizer-encoder.cjs';

type Encoding = ReturnType<typeof encodingOf>;
type TokenizerApi = Pick<Encoding, 'countTokens' | 'encode' | 'decode'>;

/** The o200k_base encoder (`loadEncoder`) over the compressed table `readTable` returns, built on the first call. */
export function lazyEncoding(
  readTable: () => Buffer,
  loadEncoder: () => { encodingOf: typeof encodingOf },
): TokenizerApi {
  let encoding: Encoding | undefined;
  const encoder = (): Encoding => {
    encoding ??= loadEncoder().encodingOf(readTable());
    return encoding;
  };
  return {
    countTokens: (...args) => encoder().countTokens(...args),
    encode: (...args) => encoder().encode(...args),
    decode: (...args) => encoder().decode(...args),
  };
}

// What @memgate/core imports from 'gpt-tokenizer': the two files beside the bundle. Pure, and without imports (the
// built-ins come from process.getBuiltinModule), so that a bundle that never counts tokens keeps none of this module
// and gets neither file beside it.
const besideBundle = /* @__PURE__ */ lazyEncoding(
  () => process.getBuiltinModule('node:fs').readFileSync(new URL(`./${TOKENIZER_TABLE_FILE}`, import.meta.url)),
  () => process.getBuiltinModule('node:module').createRequire(import.meta.url)(`./${TOKENIZER_ENCODER_FILE}`),
);
export const countTokens: TokenizerApi['countTokens'] = (...args) => besideBundle.countTokens(...args);
export const encode: TokenizerApi['encode'] = (...args) => besideBundle.encode(...args);
export const decode: TokenizerApi['decode'] = (...args) => besideBundle.decode(...args);
