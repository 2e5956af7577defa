/** Scalar's browser bundle, brotli-compressed, beside the docs function's bundle (scripts/build.ts puts it there). */
export const SCALAR_SCRIPT_FILE = 'scalar.js.br';
