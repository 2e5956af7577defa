import { createLru } from '../cache/lru.ts';
import type { ChatMessage, ContentPart } from '../model/index.ts';
import { estimateTokens } from './estimate.ts';
import { PIECE_CHARS, piecesOf, utf8Length } from './pieces.ts';
import { createTimeSlice } from './time-slice.ts';
import { countTokens as countTextTokens, decode, encode } from './tokenizer.ts';

export { utf8Length } from './pieces.ts';

/**
 * A content part as text: a text part's text (a refusal's), nothing for an image, audio or a file. As JSON, a
 * base64 image was searched with, counted as hundreds of thousands of tokens and stored with the exchange.
 */
function partText(part: ContentPart): string {
  const text = part?.type === 'text' ? part.text : part?.type === 'refusal' ? part.refusal : undefined;
  return typeof text === 'string' ? text : '';
}

/** Text of a message as a model reads it (its text, not its images or files, plus tool-call arguments). */
export function messageText(message: ChatMessage): string {
  const content =
    typeof message.content === 'string'
      ? message.content
      : message.content == null
        ? ''
        : Array.isArray(message.content)
          ? message.content.map(partText).filter(Boolean).join('\n')
          : JSON.stringify(message.content);
  const calls = message.function_call
    ? [message.function_call]
    : (message.tool_calls?.map((call) => call.function) ?? []);
  if (calls.length === 0) return content;
  return `${content}\n${calls.map((call) => `${call.name}(${call.arguments})`).join('\n')}`;
}

/** Tokens per message besides its text (OpenAI's framing, about 4). */
export const MESSAGE_FRAMING_TOKENS = 4;

/**
 * Tokens one counting pass (one history filter, one answer's length limit) may count exactly before it falls back to
 * an upper bound: counting gives the event loop back every few milliseconds, and this bounds its total CPU. Counting costs up to
 * ~4 µs per token on text the tokenizer has not seen (random letters, CJK), far less on prose and nothing on texts
 * counted before; a history budget (8,000 tokens by default) is decided on exact counts well within it.
 */
export const EXACT_TOKENS_PER_PASS = 32_768;

// Text that spells a special token ("<|endoftext|>") is counted as the plain text it is, not refused with an error.
const AS_PLAIN_TEXT = { disallowedSpecial: new Set<string>() };
const countPiece = (piece: string) => countTextTokens(piece, AS_PLAIN_TEXT);

/** Counts `text` piece by piece: linear in its length. */
function countPieces(text: string, count: (piece: string) => number): number {
  let tokens = 0;
  for (const piece of piecesOf(text)) tokens += count(piece);
  return tokens;
}

/** A remembering token counter: exact, linear in the text's length, and a count of a text seen before is free. */
export interface TokenCounter {
  (text: string): number;
  /** The remembered count of `text`, without counting it. */
  known(text: string): number | undefined;
  remember(text: string, tokens: number): void;
}

/**
 * A token counter that remembers the counts of texts it has seen, least recently used first out once the texts it
 * keeps add up to `maxChars` characters: a conversation resends its whole history every turn, and counting is the
 * costliest step of history filtering (~0.5 ms for 20 messages of 240 words).
 */
export function createTokenCounter({
  count = countPiece,
  maxChars = 4_000_000,
}: {
  /** Counts one piece (see pieces.ts); the tokenizer by default. */
  count?: (piece: string) => number;
  maxChars?: number;
} = {}): TokenCounter {
  const counted = createLru<string, number>({ maxWeight: maxChars, weigh: (text) => text.length });
  function countTokens(text: string): number {
    if (text === '') return 0;
    const known = counted.get(text);
    if (known !== undefined) return known;
    const tokens = countPieces(text, count);
    counted.set(text, tokens);
    return tokens;
  }
  return Object.assign(countTokens, {
    known: (text: string) => (text === '' ? 0 : counted.get(text)),
    remember: (text: string, tokens: number) => counted.set(text, tokens),
  });
}

/** Tokens of a text with the o200k BPE (gpt-tokenizer's default encoding); counts of repeated texts are kept. */
export const countTokens: TokenCounter = /* @__PURE__ */ createTokenCounter();

/**
 * Exact counting, for what decides on tokens (a history budget, an answer's length limit). Passed in, not defaulted,
 * so that a function that decides nothing on tokens (the chat stream) bundles no tokenizer and ships no table.
 */
export interface ExactTokens {
  /** Remembers the counts of whole texts across requests. */
  counter: TokenCounter;
  /** Counts one piece (see pieces.ts). */
  count(piece: string): number;
  /** The start of a text that is at most `limit` tokens. */
  truncate(text: string, limit: number): string;
}

/** The o200k tokenizer (gpt-tokenizer), the counts of repeated texts kept. */
export const EXACT_TOKENS: ExactTokens = {
  counter: countTokens,
  count: countPiece,
  truncate: (text, limit) => truncateToTokens(text, limit),
};

/** Tokens of one chat message: its text plus the per-message framing OpenAI counts (about 4 tokens). */
export function countMessageTokens(message: ChatMessage): number {
  return countTokens(messageText(message)) + MESSAGE_FRAMING_TOKENS;
}

/** Token counts for one pass over a request, with a bounded amount of exact counting (see EXACT_TOKENS_PER_PASS). */
export interface TokenMeter {
  /**
   * Tokens of `text` for a report (usage, tokens saved): estimated without the tokenizer (estimateTokens), so that a
   * report never makes a function read the tokenizer's table.
   */
  count(text: string): number | Promise<number>;
  /**
   * Tokens of `text` for a decision (does it fit a budget?): exact while the allowance lasts, then the rest's UTF-8
   * length, an upper bound, so a budget is never overrun; may stop early and return some number above `limit`.
   */
  countUpTo(text: string, limit: number): number | Promise<number>;
}

/**
 * A TokenMeter over a remembering counter: texts the counter has seen cost nothing; others are counted piece by piece,
 * each piece's tokens taken from the allowance, giving the event loop back between pieces every `sliceMs`. Complete
 * exact counts go into the counter for the next request. Reports are estimated piece by piece, with the same pauses.
 */
export function createTokenMeter({
  allowance = EXACT_TOKENS_PER_PASS,
  counter,
  count,
  estimate = estimateTokens,
  sliceMs = 10,
}: {
  allowance?: number;
  /** With `count`, what decisions are counted with (EXACT_TOKENS's); without them the meter only reports. */
  counter?: TokenCounter;
  /** Counts one piece exactly. */
  count?: (piece: string) => number;
  /** Estimates one piece's tokens for a report; estimateTokens by default. */
  estimate?: (piece: string) => number;
  sliceMs?: number;
} = {}): TokenMeter {
  const slice = createTimeSlice(sliceMs);
  let left = allowance;
  async function measure(
    text: string,
    limit: number,
    counter: TokenCounter,
    count: (piece: string) => number,
  ): Promise<number> {
    let tokens = 0;
    let done = 0;
    for (const piece of piecesOf(text)) {
      if (left <= 0) return tokens + utf8Length(text.slice(done));
      if (slice.due()) await slice.giveWay();
      const pieceTokens = count(piece);
      left -= pieceTokens;
      tokens += pieceTokens;
      done += piece.length;
      if (tokens > limit && done < text.length) return tokens;
    }
    counter.remember(text, tokens);
    return tokens;
  }
  async function estimateInSlices(text: string): Promise<number> {
    let tokens = 0;
    for (const piece of piecesOf(text)) {
      if (slice.due()) await slice.giveWay();
      tokens += estimate(piece);
    }
    return tokens;
  }
  // A text counted before is answered at once (no promise: a history of 100,000 messages asks 100,000 times), unless
  // the slice is used up: then the loop is given back first, whoever is asking.
  function decide(text: string, limit: number): number | Promise<number> {
    // A programming error, not a request's: whoever decides on tokens is built with EXACT_TOKENS.
    if (!counter || !count) throw new Error('this token meter only reports: it was given no exact counter');
    const go = () => counter.known(text) ?? measure(text, limit, counter, count);
    return slice.due() ? slice.giveWay().then(go) : go();
  }
  function report(text: string): number | Promise<number> {
    if (text.length <= PIECE_CHARS && !slice.due()) return estimate(text);
    return estimateInSlices(text);
  }
  return { count: report, countUpTo: decide };
}

/** Tokens of a prompt's messages (each one's text plus its framing), for a usage report. */
export async function countPromptTokens(
  meter: Pick<TokenMeter, 'count'>,
  messages: readonly ChatMessage[],
): Promise<number> {
  let tokens = 0;
  for (const message of messages) tokens += (await meter.count(messageText(message))) + MESSAGE_FRAMING_TOKENS;
  return tokens;
}

/** The start of `text` that is at most `limit` tokens, encoded piece by piece (linear, as counting is). */
export function truncateToTokens(text: string, limit: number): string {
  const tokens: number[] = [];
  for (const piece of piecesOf(text)) {
    if (tokens.length >= limit) break;
    tokens.push(...encode(piece, AS_PLAIN_TEXT).slice(0, limit - tokens.length));
  }
  return decode(tokens);
}
