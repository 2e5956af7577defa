import { brotliDecompressSync } from 'node:zlib';
import { GptEncoding } from 'gpt-tokenizer/GptEncoding';

/**
 * The o200k_base encoder over the build's compressed table (the bytes of `o200k_base.json.br`). The build makes this
 * module a CommonJS file beside the bundle of a function that counts tokens (scripts/build-sidecars.ts SIDECARS), which
 * functions/runtime/tokenizer.ts `require`s on the first exact count: gpt-tokenizer's encoder (~21 KiB) and
 * `node:zlib` are then neither read nor evaluated at a cold start.
 */
export function encodingOf(table: Buffer) {
  const ranks = JSON.parse(brotliDecompressSync(table).toString('utf8')) as (string | number[])[];
  return GptEncoding.getEncodingApi('o200k_base', () => ranks);
}
