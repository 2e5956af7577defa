import { readFileSync } from 'node:fs';

/** undici's llhttp WebAssembly (SIMD), beside the bundles that carry undici (scripts/build.ts puts it there). */
export const LLHTTP_WASM_FILE = 'llhttp_simd.wasm';

/** The binary, read from beside the bundle (an ES module, so it knows where it is; llhttp-wasm.cjs cannot). */
export function readLlhttpWasm(): Buffer {
  return readFileSync(new URL(`./${LLHTTP_WASM_FILE}`, import.meta.url));
}
