export { type ComposedAnswer, composeAnswer } from './compose.ts';
export { type ChatEvent, type ChatFailure, type ChatSource, chatFailureOf } from './events.ts';
export { PERSONAS, personaPrompt, titleOf } from './personas.ts';
export type { ChatReplay, ChatSession, SessionRepository, StoredMessage } from './ports.ts';
export {
  type ChatRequest,
  type ChatRequestMessage,
  type ChatService,
  type ChatServiceOptions,
  type ChatTurn,
  createChatService,
} from './service.ts';
