import { giveWay } from '@memgate/core';
import {
  CLOSE_BRACE,
  CLOSE_BRACKET,
  COLON,
  COMMA,
  closingQuoteOf,
  isSpace,
  OPEN_BRACE,
  OPEN_BRACKET,
  QUOTE,
} from './json-string.ts';

/**
 * Characters scanned between two chances for other requests to run: a 6 MB body is read in about 24 steps of a few
 * milliseconds each.
 */
const SCAN_CHARS = 256 * 1024;

/**
 * The top-level field (a key of the top-level object, an index of a top-level array) under which the JSON `text`
 * nests arrays and objects deeper than `max` levels (the top level is 1), or undefined when it does not. Read from
 * the text, before it is parsed: one pass over the characters, no allocation but the field's name, giving the event
 * loop back every SCAN_CHARS characters, where walking the parsed value of a 5 MB body held the loop ~100 ms (its
 * objects, then the garbage). Text that is not JSON may be answered either way: JSON.parse refuses it afterwards.
 */
export async function tooDeepFieldOf(text: string, max: number): Promise<string | undefined> {
  let depth = 0;
  let field: string | undefined;
  let elements = 0; // in a top-level array: the index of the current element
  let topIsArray = false;
  let keyStart = -1; // at depth 1 in an object: where the last string began, while it may still be a key
  let keyEnd = -1;
  let nextBreak = SCAN_CHARS;
  for (let at = 0; at < text.length; at += 1) {
    if (at >= nextBreak) {
      nextBreak += SCAN_CHARS;
      await giveWay();
    }
    const code = text.charCodeAt(at);
    if (code === QUOTE) {
      const start = at;
      const close = closingQuoteOf(text, at);
      at = close < 0 ? text.length : close;
      if (depth === 1 && !topIsArray) {
        keyStart = start;
        keyEnd = at + 1;
      }
    } else if (code === COLON) {
      if (depth === 1 && keyStart >= 0) field = nameOf(text.slice(keyStart, keyEnd));
      keyStart = -1;
    } else if (code === OPEN_BRACE || code === OPEN_BRACKET) {
      if (depth === 0) topIsArray = code === OPEN_BRACKET;
      else if (depth === 1 && topIsArray) field = String(elements);
      depth += 1;
      if (depth > max) return field;
      keyStart = -1;
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      depth -= 1;
      keyStart = -1;
    } else if (code === COMMA) {
      if (depth === 1 && topIsArray) elements += 1;
      keyStart = -1;
    } else if (!isSpace(code)) {
      keyStart = -1;
    }
  }
  return undefined;
}

/** A key as written in JSON (quotes, escapes) → its name. */
function nameOf(quoted: string): string {
  try {
    return String(JSON.parse(quoted));
  } catch {
    return quoted.slice(1, -1);
  }
}
