import type { ChatMessage } from '../model/index.ts';
import { createTokenMeter, EXACT_TOKENS, MESSAGE_FRAMING_TOKENS, messageText, utf8Length } from './tokens.ts';

/** Token counts of a request's messages by index, each worked out only as far as a decision needs it. */
export interface MessageTokens {
  /** An upper bound of the message's tokens, without counting: its UTF-8 length plus the framing. */
  bound(index: number): number;
  /** The message's tokens if at most `limit`, else some number above `limit`. */
  upTo(index: number, limit: number): number | Promise<number>;
  /** The message's tokens for a report: exact while the pass's allowance lasts (EXACT_TOKENS_PER_PASS), then estimated. */
  forReport(index: number): number | Promise<number>;
}

/** Counts with one TokenMeter for the whole pass; `countTokens`, when given, is taken as exact (tests). */
export function createMessageTokens(
  messages: readonly ChatMessage[],
  countTokens?: (message: ChatMessage) => number,
): MessageTokens {
  const counted = new Map<number, number>();
  if (countTokens) {
    const exact = (index: number) => {
      let tokens = counted.get(index);
      if (tokens === undefined) {
        tokens = countTokens(messages[index] as ChatMessage);
        counted.set(index, tokens);
      }
      return tokens;
    };
    return { bound: exact, upTo: exact, forReport: exact };
  }
  const meter = createTokenMeter(EXACT_TOKENS);
  const textOf = (index: number) => messageText(messages[index] as ChatMessage);
  return {
    bound: (index) => utf8Length(textOf(index)) + MESSAGE_FRAMING_TOKENS,
    upTo(index, limit) {
      const known = counted.get(index);
      if (known !== undefined) return known;
      const settle = (textTokens: number) => {
        const tokens = textTokens + MESSAGE_FRAMING_TOKENS;
        if (tokens <= limit) counted.set(index, tokens); // above the limit it may be a partial count
        return tokens;
      };
      const textTokens = meter.countUpTo(textOf(index), limit - MESSAGE_FRAMING_TOKENS);
      return typeof textTokens === 'number' ? settle(textTokens) : textTokens.then(settle);
    },
    forReport(index) {
      const known = counted.get(index);
      if (known !== undefined) return known;
      const settle = (textTokens: number) => {
        const tokens = textTokens + MESSAGE_FRAMING_TOKENS;
        counted.set(index, tokens);
        return tokens;
      };
      const textTokens = meter.count(textOf(index));
      return typeof textTokens === 'number' ? settle(textTokens) : textTokens.then(settle);
    },
  };
}
