import { isMemgateError } from '../errors/index.ts';
import type { ToolCall, Usage } from '../model/index.ts';

/** A stored passage the answer drew on. */
export interface ChatSource {
  contextId: string;
  documentId: string;
  fileName: string;
  score: number;
}

/** A failure after the stream started, as the stream sends it (no `type`: DESIGN.md section 5's error event). */
export interface ChatFailure {
  type?: undefined;
  content: null;
  error: { message: string };
}

/** The events of the chat stream (DESIGN.md section 5), in the order they are sent. */
export type ChatEvent =
  | { type: 'thinking_update'; content: string }
  | {
      type: 'final_response';
      content: string;
      json: { sources: ChatSource[]; model: string; usage: Usage; tool_calls: ToolCall[] };
    }
  | { type: 'metadata'; content: { chatId: string; title: string; replaySessionID: string } }
  | ChatFailure;

/** What a failed stream tells the client: a MemgateError's own message, else a generic one (no stack, no secret). */
export function chatFailureOf(error: unknown): ChatFailure {
  const message =
    isMemgateError(error) && error.kind !== 'internal' ? error.message : 'the answer could not be completed';
  return { content: null, error: { message } };
}
