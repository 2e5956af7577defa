/**
 * Runs of text the o200k tokenizer treats alike: a word with its leading space, up to three digits, a run of
 * spaces, a run of punctuation and symbols.
 */
const RUNS = /(\s?\p{L}+)|(\p{N}{1,3})|(\s+)|([^\s\p{L}\p{N}]+)/gu;
const LATIN_WORD = /^\s?\p{Script=Latin}+$/u;
const HAN_KANA_HANGUL = /[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]/;

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
  for (const [, word, digits, spaces, symbols] of text.matchAll(RUNS)) {
    if (word !== undefined) {
      // o200k holds most Latin words whole; other scripts split more often; CJK is about a token per character.
      const letters = word.length - (word.charCodeAt(0) <= 0x20 ? 1 : 0);
      if (LATIN_WORD.test(word)) tokens += latinWordTokens(letters);
      else if (HAN_KANA_HANGUL.test(word)) tokens += Math.ceil(letters / 1.3);
      else tokens += Math.ceil(letters / 5);
    } else if (digits !== undefined) tokens += 1;
    else if (spaces !== undefined) tokens += spaces.length > 1 ? 1 : 0;
    else if (symbols !== undefined) tokens += Math.ceil(symbols.length / 3);
  }
  return tokens;
}
