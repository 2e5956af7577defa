const QUOTE = '"';
const BACKSLASH = 0x5c;

/**
 * Where the JSON string opened by the quote at `start` closes: the index of the first quote after it not escaped by
 * a backslash, or -1 when there is none. Found by indexOf, several times faster over prose than a loop over its
 * characters; each run of backslashes is counted once (it precedes one quote).
 */
export function closingQuoteOf(text: string, start: number): number {
  for (let quote = text.indexOf(QUOTE, start + 1); quote >= 0; quote = text.indexOf(QUOTE, quote + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes += 1;
    if (backslashes % 2 === 0) return quote;
  }
  return -1;
}
