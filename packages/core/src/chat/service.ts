import { randomUUID } from 'node:crypto';
import { type Principal, requireScope } from '../auth/index.ts';
import type { Clock } from '../clock.ts';
import type { ContextScope } from '../context/record.ts';
import type { ContextStore } from '../context/service.ts';
import { forbidden, invalid, MemgateError } from '../errors/index.ts';
import type { ChatModel } from '../model/index.ts';
import type { ChatEvent } from './events.ts';
import { PERSONAS, titleOf } from './personas.ts';
import type { ChatSession, SessionRepository } from './ports.ts';
import { runTurn } from './turn.ts';

/** One message of a chat request (spec 2.5). */
export interface ChatRequestMessage {
  role: 'user' | 'assistant' | 'system';
  content: string;
  id?: string;
}

/** A validated chat request (spec 4.3). */
export interface ChatRequest {
  chatId?: string;
  chat_history: ChatRequestMessage[];
  persona?: string;
  scope?: ContextScope;
  tools?: unknown[];
}

export interface ChatServiceOptions {
  sessions: SessionRepository;
  contextStore: ContextStore;
  model: ChatModel;
  clock: Clock;
  ttlDays: number;
  personas?: Readonly<Record<string, string>>;
  ids?: () => string;
  contextTopK?: number;
  contextMinSimilarity?: number;
}

/** An accepted request: its events are produced (and the session saved) as they are consumed. */
export interface ChatTurn {
  chatId: string;
  events(signal: AbortSignal): AsyncGenerator<ChatEvent>;
}

export interface ChatService {
  open(principal: Principal, request: ChatRequest): Promise<ChatTurn>;
  replay(principal: Principal, replaySessionID: string): Promise<ChatEvent[]>;
}

/** The streaming chat (DESIGN.md section 5): sessions, context, the default model and replays. */
export function createChatService(options: ChatServiceOptions): ChatService {
  const { sessions, clock, ttlDays } = options;
  const ids = options.ids ?? randomUUID;
  const settings = {
    ...options,
    ids,
    personas: options.personas ?? PERSONAS,
    contextTopK: options.contextTopK ?? 5,
    contextMinSimilarity: options.contextMinSimilarity ?? 0.25,
    expiryFrom: (now: Date) => new Date(now.getTime() + ttlDays * 86_400_000).toISOString(),
  };

  /** Loads (owner only) or starts the session; only an existing chatId costs I/O before the stream starts. */
  async function open(principal: Principal, request: ChatRequest): Promise<ChatTurn> {
    requireScope(principal, 'chat');
    const last = request.chat_history.at(-1);
    if (last?.role !== 'user') throw invalid('the last message of chat_history must be from the user');
    const now = clock.now();
    let session: ChatSession;
    if (request.chatId !== undefined) {
      const found = await sessions.getSession(request.chatId, now);
      if (!found) throw invalid(`unknown chatId '${request.chatId}'`, 'chatId');
      if (found.ownerId !== principal.userId) throw forbidden('this chat belongs to another user', 'not_owner');
      session = found;
    } else {
      const at = now.toISOString();
      session = {
        chatId: ids(),
        ownerId: principal.userId,
        title: titleOf(last.content),
        createdAt: at,
        updatedAt: at,
        expiresAt: settings.expiryFrom(now),
        messages: [],
      };
    }
    return {
      chatId: session.chatId,
      events: (signal) => runTurn(settings, principal, request, session, signal),
    };
  }

  /** The recorded events of one answer, for its owner only. */
  async function replay(principal: Principal, replaySessionID: string): Promise<ChatEvent[]> {
    requireScope(principal, 'chat');
    const found = await sessions.getReplay(replaySessionID, clock.now());
    if (!found) throw new MemgateError('not_found', 'replay_not_found', `unknown replaySessionID '${replaySessionID}'`);
    if (found.ownerId !== principal.userId) throw forbidden('this replay belongs to another user', 'not_owner');
    return found.events;
  }

  return { open, replay };
}

export type ChatSettings = Required<Omit<ChatServiceOptions, 'personas' | 'ids'>> & {
  ids: () => string;
  personas: Readonly<Record<string, string>>;
  expiryFrom(now: Date): string;
};
