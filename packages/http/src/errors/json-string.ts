/** The character codes of JSON's structure, for the scans over a body's text (json-depth.ts, json-slices.ts). */
export const QUOTE = 0x22;
export const COLON = 0x3a;
export const COMMA = 0x2c;
export const OPEN_BRACE = 0x7b;
export const OPEN_BRACKET = 0x5b;
export const CLOSE_BRACE = 0x7d;
export const CLOSE_BRACKET = 0x5d;
const BACKSLASH = 0x5c;

export const isSpace = (code: number) => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/**
 * Where the JSON string opened by the quote at `start` closes: the index of the first quote after it not escaped by
 * a backslash, or -1 when there is none. Found by indexOf, several times faster over prose than a loop over its
 * characters; each run of backslashes is counted once (it precedes one quote).
 */
export function closingQuoteOf(text: string, start: number): number {
  for (let quote = text.indexOf('"', start + 1); quote >= 0; quote = text.indexOf('"', quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
  }
  return -1;
}
