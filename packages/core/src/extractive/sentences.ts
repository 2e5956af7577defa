/**
 * Sentence boundaries by the rules of Unicode's text segmentation (UAX #29, "Sentence Boundaries", SB3-SB11), the
 * ones ICU applies for `new Intl.Segmenter('en', { granularity: 'sentence' })`. Not the Segmenter itself: building
 * the first one loads ICU's break rules and data, ~15 ms of CPU (more in wall time) on the first proxied answer or
 * chat of a Lambda cold start, for an answer whose text is a few passages. sentences.test.ts checks the
 * boundaries against the Segmenter's.
 */

// Sentence break kinds (UAX #29's Sentence_Break values that matter here), as numbers for a typed array.
const Kind = {
  Other: 0,
  CR: 1,
  Sep: 2, // LF and the other paragraph separators
  Sp: 3,
  Lower: 4,
  Upper: 5,
  OLetter: 6,
  Numeric: 7,
  ATerm: 8, // full stops: '.' ends a sentence unless what follows says it is an abbreviation or a number
  STerm: 9, // '!', '?' and their kin
  Close: 10, // quotes and brackets that may follow a terminator
  SContinue: 11, // ',', ';', ':', dashes: a terminator before them ends no sentence
  Extend: 12, // combining marks and format characters: they take the kind of the character before them
} as const;
type Kind = (typeof Kind)[keyof typeof Kind];

const SEP = /[\n\u0085\u2028\u2029]/u;
const SP = /[\t\v\f \u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]/u;
const A_TERM = /[.\u2024\ufe52\uff0e]/u;
const S_TERM =
  /[!?\u0589\u061d-\u061f\u06d4\u0700-\u0702\u07f9\u0837\u0839\u083d\u083e\u0964\u0965\u104a\u104b\u1362\u1367\u1368\u166e\u1735\u1736\u1803\u1809\u1944\u1945\u1aa8-\u1aab\u1b5a\u1b5b\u1b5e\u1b5f\u1c3b\u1c3c\u1c7e\u1c7f\u203c\u203d\u2047-\u2049\u2e2e\u2e3c\u3002\ua4ff\ua60e\ua60f\ua6f3\ua6f7\ua876\ua877\ua8ce\ua8cf\ua92f\ua9c8\ua9c9\uaa5d-\uaa5f\uaaf0\uaaf1\uabeb\ufe56\ufe57\uff01\uff1f\uff61]/u;
const CLOSE = /["'\p{Ps}\p{Pe}\p{Pi}\p{Pf}\u00ab\u00bb]/u;
const S_CONTINUE =
  /[,\-:;\u055d\u060c\u060d\u07f8\u1802\u1808\u2013\u2014\u3001\ufe10\ufe11\ufe13\ufe31\ufe32\ufe50\ufe51\ufe55\ufe58\ufe63\uff0c\uff0d\uff1a\uff1b\uff64]/u;

function classify(char: string): Kind {
  if (char === '\r') return Kind.CR;
  if (SEP.test(char)) return Kind.Sep;
  if (SP.test(char)) return Kind.Sp;
  if (/[\p{M}\p{Cf}]/u.test(char)) return Kind.Extend;
  if (/\p{Lowercase}/u.test(char)) return Kind.Lower;
  if (/[\p{Uppercase}\p{Lt}]/u.test(char)) return Kind.Upper;
  if (/[\p{Alphabetic}]/u.test(char)) return Kind.OLetter;
  if (/\p{Nd}/u.test(char)) return Kind.Numeric;
  if (A_TERM.test(char)) return Kind.ATerm;
  if (S_TERM.test(char)) return Kind.STerm;
  if (CLOSE.test(char)) return Kind.Close;
  if (S_CONTINUE.test(char)) return Kind.SContinue;
  return Kind.Other;
}

// Kinds by code point, filled on use: ASCII in a table, the rest in a map, each classified on its first sight.
const ascii = new Uint8Array(128).fill(255);
const known = new Map<number, Kind>();
function kindOf(code: number): Kind {
  if (code < 128) {
    const seen = ascii[code] as number;
    if (seen !== 255) return seen as Kind;
    const kind = classify(String.fromCharCode(code));
    ascii[code] = kind;
    return kind;
  }
  let kind = known.get(code);
  if (kind === undefined) {
    kind = classify(String.fromCodePoint(code));
    known.set(code, kind);
  }
  return kind;
}

const isTerm = (kind: number | undefined) => kind === Kind.ATerm || kind === Kind.STerm;
const isParagraphEnd = (kind: number | undefined) => kind === Kind.Sep || kind === Kind.CR;

/**
 * The end offsets (UTF-16) of `text`'s sentences, the last one `text.length`. Each sentence keeps the spaces and the
 * line break after it, as the Segmenter's segments do.
 */
export function sentenceEnds(text: string): number[] {
  // One entry per code point; marks and format characters take the kind of the character they follow (SB5).
  const kinds = new Uint8Array(text.length);
  const ends = new Uint32Array(text.length); // the UTF-16 offset after each entry
  let n = 0;
  for (let at = 0; at < text.length; ) {
    const code = text.codePointAt(at) as number;
    at += code > 0xffff ? 2 : 1;
    const kind = kindOf(code);
    if (kind === Kind.Extend && n > 0 && !isParagraphEnd(kinds[n - 1])) {
      ends[n - 1] = at;
      continue;
    }
    kinds[n] = kind === Kind.Extend ? Kind.Other : kind;
    ends[n] = at;
    n++;
  }
  const breaks: number[] = [];
  for (let i = 0; i < n; i++) {
    const kind = kinds[i];
    if (kind === Kind.CR) {
      if (kinds[i + 1] === Kind.Sep && text[ends[i] as number] === '\n') i++; // SB3: CR × LF
      if (i < n - 1) breaks.push(ends[i] as number); // SB4: a paragraph separator ends its sentence
      continue;
    }
    if (kind === Kind.Sep) {
      if (i < n - 1) breaks.push(ends[i] as number);
      continue;
    }
    if (!isTerm(kind)) continue;
    const next = kinds[i + 1];
    if (kind === Kind.ATerm && next === Kind.Numeric) continue; // SB6: "3.14"
    const before = kinds[i - 1];
    if (kind === Kind.ATerm && next === Kind.Upper && (before === Kind.Upper || before === Kind.Lower)) continue; // SB7
    let after = i + 1;
    while (kinds[after] === Kind.Close) after++;
    while (kinds[after] === Kind.Sp) after++;
    const following = kinds[after];
    if (after >= n) break; // the text's end ends the last sentence
    if (following === Kind.SContinue || isTerm(following)) {
      i = after - 1; // SB8a: "?!", "...", "e.g., " go on
      continue;
    }
    if (isParagraphEnd(following)) {
      i = after - 1; // SB9/SB10: the separator closes the sentence (and breaks after it)
      continue;
    }
    if (kind === Kind.ATerm && lowerComesFirst(kinds, n, after)) {
      i = after - 1; // SB8: "etc. and so on", "p. 12 of it"
      continue;
    }
    breaks.push(ends[after - 1] as number); // SB11
    i = after - 1;
  }
  breaks.push(text.length);
  return breaks;
}

/** SB8: whether a lower-case letter comes before any other letter, terminator or paragraph end from `from` on. */
function lowerComesFirst(kinds: Uint8Array, n: number, from: number): boolean {
  for (let k = from; k < n; k++) {
    const kind = kinds[k];
    if (kind === Kind.Lower) return true;
    if (
      kind === Kind.Upper ||
      kind === Kind.OLetter ||
      kind === Kind.Sep ||
      kind === Kind.CR ||
      kind === Kind.ATerm ||
      kind === Kind.STerm
    ) {
      return false;
    }
  }
  return false;
}

/** `text` cut at its sentence boundaries (each piece as the Segmenter would give it, untrimmed). */
export function splitSentences(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (const end of sentenceEnds(text)) {
    if (end > start) pieces.push(text.slice(start, end));
    start = end;
  }
  return pieces;
}
