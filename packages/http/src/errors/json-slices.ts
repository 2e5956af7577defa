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
 * A text this long or shorter is one JSON.parse: 256 KB of distinct keys, the slowest shape to parse, takes ~15 ms,
 * and every body of the hot paths (a proxied request, a search, the bench's add of 100 KB) stays on the fast path.
 */
const WHOLE_CHARS = 256 * 1024;

/**
 * Characters parsed (or scanned) between two chances for other requests to run in a longer text. One JSON.parse of
 * a 6 MB body of distinct keys held the loop 0.4-1.2 s; 64 KB of the same takes ~4 ms (up to ~30 ms late in a body).
 */
const PIECE_CHARS = 64 * 1024;

/**
 * `JSON.parse(text)`, the same value, errors as SyntaxError, but a text longer than WHOLE_CHARS is parsed in pieces
 * of about PIECE_CHARS characters with a chance for other requests between them: what makes one parse slow (many
 * distinct keys or strings) is paid per piece. A large array or object is cut between its members, each run of
 * members parsed by JSON.parse and added to the value; a member larger than a piece is read the same way in turn.
 * Nesting must have been checked (MAX_JSON_DEPTH): a large container nested deeper than `levels` reads as null, so
 * that a message refused as too deep can still have its id read without parsing the rest.
 */
export async function parseJsonInSlices(
  text: string,
  levels: number,
  { wholeChars = WHOLE_CHARS, pieceChars = PIECE_CHARS } = {},
): Promise<unknown> {
  if (text.length <= wholeChars) return JSON.parse(text);
  let start = 0;
  let end = text.length;
  while (start < end && isSpace(text.charCodeAt(start))) start += 1;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end -= 1;
  return new PieceParser(text, levels, pieceChars).value(start, end, 1);
}

class PieceParser {
  private spent = 0;

  constructor(
    private readonly text: string,
    private readonly levels: number,
    private readonly pieceChars: number,
  ) {}

  /** The value written exactly at [start, end) (no space around it), at nesting `level`. */
  async value(start: number, end: number, level: number): Promise<unknown> {
    const open = this.text.charCodeAt(start);
    const isContainer = open === OPEN_BRACE || open === OPEN_BRACKET;
    if (end - start <= this.pieceChars || !isContainer) {
      await this.spend(end - start);
      return JSON.parse(this.text.slice(start, end));
    }
    if (this.text.charCodeAt(end - 1) !== (open === OPEN_BRACE ? CLOSE_BRACE : CLOSE_BRACKET)) fail();
    if (level > this.levels) return null;
    return open === OPEN_BRACKET ? this.array(start, end, level) : this.object(start, end, level);
  }

  private async array(start: number, end: number, level: number): Promise<unknown[]> {
    const items: unknown[] = [];
    await this.members(start, end, async (from, to, large) => {
      if (large) items.push(await this.value(from, to, level + 1));
      else for (const item of JSON.parse(`[${this.text.slice(from, to)}]`) as unknown[]) items.push(item);
    });
    return items;
  }

  private async object(start: number, end: number, level: number): Promise<Record<string, unknown>> {
    const members: Record<string, unknown> = {};
    await this.members(start, end, async (from, to, large) => {
      if (!large) {
        const run = JSON.parse(`{${this.text.slice(from, to)}}`) as Record<string, unknown>;
        for (const key of Object.keys(run)) addMember(members, key, run[key]);
        return;
      }
      // One member: "key" : value
      if (this.text.charCodeAt(from) !== QUOTE) fail();
      const keyEnd = skipString(this.text, from);
      let valueStart = keyEnd;
      while (isSpace(this.text.charCodeAt(valueStart))) valueStart += 1;
      if (this.text.charCodeAt(valueStart) !== COLON) fail();
      valueStart += 1;
      while (isSpace(this.text.charCodeAt(valueStart))) valueStart += 1;
      if (valueStart >= to) fail();
      const key = JSON.parse(this.text.slice(from, keyEnd)) as string;
      addMember(members, key, await this.value(valueStart, to, level + 1));
    });
    return members;
  }

  /**
   * Calls `take` for each run of members of the container at [start, end) (the text between its brackets, cut at its
   * own commas) that fits a piece, and for each member that does not (`large`, trimmed of space), in order.
   */
  private async members(
    start: number,
    end: number,
    take: (from: number, to: number, large: boolean) => Promise<void>,
  ): Promise<void> {
    const { text } = this;
    const last = end - 1; // the closing bracket
    let runStart = -1;
    let runEnd = -1;
    const flush = async () => {
      if (runStart < 0) return;
      await this.spend(runEnd - runStart);
      await take(runStart, runEnd, false);
      runStart = -1;
    };
    let at = start + 1;
    let depth = 0;
    let memberStart = at;
    let first = true;
    while (true) {
      // Find the next comma of this container, or its closing bracket, in steps of at most a piece.
      const stop = Math.min(last, at + this.pieceChars);
      let comma = false;
      for (; at < stop; at += 1) {
        const code = text.charCodeAt(at);
        if (code === QUOTE) at = skipString(text, at) - 1;
        else if (code === OPEN_BRACE || code === OPEN_BRACKET) depth += 1;
        else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) depth -= 1;
        else if (code === COMMA && depth === 0) {
          comma = true;
          break;
        }
      }
      if (!comma && at < last) {
        await this.spend(this.pieceChars);
        continue;
      }
      if (at > last) fail(); // a string ran over the closing bracket
      let from = memberStart;
      let to = at;
      while (from < to && isSpace(text.charCodeAt(from))) from += 1;
      while (to > from && isSpace(text.charCodeAt(to - 1))) to -= 1;
      if (depth !== 0) fail();
      if (from === to) {
        // Only `[]` or `{}` (with space) may have no member; `[1,]` and `[,1]` may not.
        if (first && at === last) return;
        fail();
      }
      if (to - from > this.pieceChars) {
        await flush();
        await take(from, to, true);
      } else {
        if (runStart >= 0 && to - runStart > this.pieceChars) await flush();
        if (runStart < 0) runStart = from;
        runEnd = to;
      }
      first = false;
      if (at === last) break;
      at += 1;
      memberStart = at;
    }
    await flush();
  }

  /** Counts characters read; past a piece's worth, lets other requests run. */
  private async spend(chars: number): Promise<void> {
    this.spent += chars;
    if (this.spent < this.pieceChars) return;
    this.spent = 0;
    await giveWay();
  }
}

/** Where the string starting at `start` (a quote) ends: just past its closing quote. */
function skipString(text: string, start: number): number {
  const close = closingQuoteOf(text, start);
  if (close < 0) fail();
  return close + 1;
}

/** As JSON.parse adds a member: an own property even for `__proto__`, the last of a repeated key winning. */
function addMember(members: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(members, key, { value, writable: true, enumerable: true, configurable: true });
  } else members[key] = value;
}

function fail(): never {
  throw new SyntaxError('not valid JSON');
}
