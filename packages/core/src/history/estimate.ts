/**
 * Runs of text the o200k tokenizer treats alike, tried in this order at each position: a word with its leading
 * space, up to three digits, a run of spaces, a run of punctuation and symbols. Every character starts one of them.
 * Sticky, and only tested: the scan reads each run's end from `lastIndex` and allocates nothing (a `matchAll` made
 * a match array and its strings per run, ~90 KiB for a proxied request's history).
 */
const WORD = /\s?\p{L}+/uy;
const DIGITS = /\p{N}{1,3}/uy;
const SPACES = /\s+/uy;
const SYMBOLS = /[^\s\p{L}\p{N}]+/uy;
/** Matches at least to a word's end when every letter of it is Latin (a Latin numeral such as Ⅻ may follow it). */
const LATIN_WORD = /\s?\p{Script=Latin}+/uy;

/** Whether the sticky `pattern` matches at `from` in `text`; its end is then `pattern.lastIndex`. */
function runAt(pattern: RegExp, text: string, from: number): boolean {
  pattern.lastIndex = from;
  return pattern.test(text);
}

/** Whether `text` holds a Han, kana or Hangul code unit from `from` to `to`. */
function hasHanKanaHangul(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const code = text.charCodeAt(i);
    if ((code >= 0x3040 && code <= 0x30ff) || (code >= 0x3400 && code <= 0x9fff) || (code >= 0xac00 && code <= 0xd7af))
      return true;
  }
  return false;
}

/** A Latin word is mostly one or two tokens; beyond a dozen letters it is no dictionary word (an id, a hash, a
 *  run-together string) and splits about every second letter. */
function latinWordTokens(letters: number): number {
  return letters <= 12 ? Math.ceil(letters / 9) : Math.ceil(letters / 2);
}

/**
 * Tokens of `text` estimated without the tokenizer's table, for reports (usage, tokens saved), never for a decision:
 * reading the table costs a cold start most of a second, and a report does not need to be exact. Calibrated on
 * o200k_base: prose, Markdown, code and random letters come within about 20% of the exact count (estimate.test.ts).
 * Linear in the length of `text`.
 */
export function estimateTokens(text: string): number {
  let tokens = 0;
  for (let at = 0; at < text.length; ) {
    let end: number;
    if (runAt(WORD, text, at)) {
      end = WORD.lastIndex;
      // o200k holds most Latin words whole; other scripts split more often; CJK is about a token per character.
      const letters = end - at - (text.charCodeAt(at) <= 0x20 ? 1 : 0);
      if (runAt(LATIN_WORD, text, at) && LATIN_WORD.lastIndex >= end) tokens += latinWordTokens(letters);
      else if (hasHanKanaHangul(text, at, end)) tokens += Math.ceil(letters / 1.3);
      else tokens += Math.ceil(letters / 5);
    } else if (runAt(DIGITS, text, at)) {
      end = DIGITS.lastIndex;
      tokens += 1;
    } else if (runAt(SPACES, text, at)) {
      end = SPACES.lastIndex;
      tokens += end - at > 1 ? 1 : 0;
    } else {
      // What is left: neither a space, nor a letter, nor a number (a failed test sets lastIndex to 0).
      runAt(SYMBOLS, text, at);
      end = Math.max(SYMBOLS.lastIndex, at + 1);
      tokens += Math.ceil((end - at) / 3);
    }
    at = end;
  }
  return tokens;
}
