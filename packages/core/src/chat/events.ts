import type { ToolCall, Usage } from '../model/index.ts';

/** A stored passage the answer drew on. */
export interface ChatSource {
  contextId: string;
  documentId: string;
  fileName: string;
  score: number;
}

/** The events of the chat stream (DESIGN.md section 5), in the order they are sent. */
export type ChatEvent =
  | { type: 'thinking_update'; content: string }
  | {
      type: 'final_response';
      content: string;
      json: { sources: ChatSource[]; model: string; usage: Usage; tool_calls: ToolCall[] };
    }
  | { type: 'metadata'; content: { chatId: string; title: string; replaySessionID: string } };
