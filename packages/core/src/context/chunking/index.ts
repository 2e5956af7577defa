export interface ChunkingOptions {
  /** Longest chunk, in UTF-16 code units. */
  maxChars?: number;
  /** A natural break is only taken once the chunk is at least this long, so chunks do not come out tiny. */
  minChars?: number;
}

// Breaks tried in order of preference: paragraph, line, sentence end, any whitespace.
const BREAKS: readonly RegExp[] = [/\n\s*\n/g, /\n/g, /[.!?;:]["')\]]?\s/g, /\s/g];

/** The end (exclusive) of the last match of `pattern` in `window` that ends at or after `minEnd`. */
function lastBreak(window: string, pattern: RegExp, minEnd: number): number {
  let best = -1;
  pattern.lastIndex = 0;
  for (let match = pattern.exec(window); match !== null; match = pattern.exec(window)) {
    const end = match.index + match[0].length;
    if (end >= minEnd) best = end;
    if (match[0].length === 0) pattern.lastIndex++;
  }
  return best;
}

/**
 * Splits `text` into chunks that partition it: joined in order they give `text` back exactly (nothing trimmed,
 * nothing overlapped). Prefers paragraph, line, sentence and word boundaries; cuts hard only inside a long word,
 * and never between the two halves of a surrogate pair.
 */
export function splitIntoChunks(text: string, { maxChars = 1500, minChars = 500 }: ChunkingOptions = {}): string[] {
  if (maxChars < 2) throw new RangeError('maxChars must be at least 2');
  const minimum = Math.min(minChars, maxChars);
  const chunks: string[] = [];
  let start = 0;
  while (start < text.length) {
    if (text.length - start <= maxChars) {
      chunks.push(text.slice(start));
      break;
    }
    const window = text.slice(start, start + maxChars);
    let cut = -1;
    for (const pattern of BREAKS) {
      cut = lastBreak(window, pattern, minimum);
      if (cut > 0) break;
    }
    if (cut <= 0) {
      cut = maxChars;
      const last = window.charCodeAt(cut - 1);
      if (last >= 0xd800 && last <= 0xdbff) cut -= 1;
    }
    chunks.push(text.slice(start, start + cut));
    start += cut;
  }
  return chunks;
}
