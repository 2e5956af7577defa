/**
 * The tokenizer's merge step is quadratic in the length of one pre-token (a run of letters, of punctuation or of
 * spaces), so a 120,000-letter word took seconds. Text is therefore counted in pieces of at most PIECE_CHARS
 * characters. A piece ends where the tokenizer would end a pre-token anyway (before a space that follows a non-space
 * and precedes a letter: " word" always starts a new pre-token), so ordinary prose counts exactly as a whole. Only a
 * run longer than a piece with no such place in it is cut hard, which can move the count by about one token per cut.
 */
export const PIECE_CHARS = 128;

const LETTER = /\p{L}/u;
const SPACE = /\s/u;

/** True when a piece may end right before `at` without changing how the tokenizer splits the text. */
function isWordStart(text: string, at: number): boolean {
  if (text.charCodeAt(at) !== 0x20 || at === 0 || SPACE.test(text.charAt(at - 1))) return false;
  const next = text.codePointAt(at + 1);
  return next !== undefined && LETTER.test(String.fromCodePoint(next));
}

/** Where the piece that starts at `start` ends (exclusive). */
function pieceEnd(text: string, start: number): number {
  const limit = start + PIECE_CHARS;
  if (limit >= text.length) return text.length;
  for (let at = limit; at > start; at -= 1) if (isWordStart(text, at)) return at;
  // No word start in the window: a hard cut, never between the two halves of a surrogate pair.
  const code = text.charCodeAt(limit - 1);
  return code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit;
}

/** The pieces of `text`, in order; joined they give `text` back. */
export function* piecesOf(text: string): Generator<string> {
  for (let start = 0; start < text.length; ) {
    const end = pieceEnd(text, start);
    yield text.slice(start, end);
    start = end;
  }
}

/** Bytes of `text` in UTF-8, without encoding it: an upper bound of its tokens (every token is at least one byte). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const low = text.charCodeAt(index + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        bytes += 4;
        index += 1;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}
