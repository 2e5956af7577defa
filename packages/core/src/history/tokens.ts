import { countTokens as countTextTokens } from 'gpt-tokenizer';
import type { ChatMessage } from '../model/index.ts';

/** Text of a message as a model sees it (content plus tool-call arguments). */
export function messageText(message: ChatMessage): string {
  const content =
    typeof message.content === 'string'
      ? message.content
      : message.content == null
        ? ''
        : JSON.stringify(message.content);
  if (!message.tool_calls?.length) return content;
  return `${content}\n${message.tool_calls.map((call) => `${call.function.name}(${call.function.arguments})`).join('\n')}`;
}

/** Tokens of a text with the o200k/cl100k-family BPE (gpt-tokenizer's default encoding). */
export function countTokens(text: string): number {
  return text === '' ? 0 : countTextTokens(text);
}

/** Tokens of one chat message: its text plus the per-message framing OpenAI counts (about 4 tokens). */
export function countMessageTokens(message: ChatMessage): number {
  return countTokens(messageText(message)) + 4;
}
