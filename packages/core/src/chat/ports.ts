import type { ExpiringItems } from '../cleanup/ports.ts';
import type { ChatEvent } from './events.ts';

/** One message kept in a session. */
export interface StoredMessage {
  id: string;
  role: 'user' | 'assistant' | 'system';
  content: string;
  createdAt: string;
}

/** A chat session: who owns it, its title and its messages, oldest first. Times are ISO strings. */
export interface ChatSession {
  chatId: string;
  ownerId: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  expiresAt: string;
  messages: StoredMessage[];
}

/** The recorded events of one answer, streamed again by the replay route. */
export interface ChatReplay {
  replaySessionID: string;
  chatId: string;
  ownerId: string;
  createdAt: string;
  expiresAt: string;
  events: ChatEvent[];
}

/**
 * Where sessions and replays live. Reads treat an item past its `expiresAt` as absent (storage TTLs lag).
 *
 * For the scheduled cleanup it is also an `ExpiringItems`: `listExpired` returns opaque ids (`chat#<chatId>`,
 * `replay#<replaySessionID>`) of sessions and replays whose expiry is before `before`, oldest first, and
 * `delete(ids)` removes them (unknown ids are ignored). Pass the repository as the cleanup's `sessions`.
 */
export interface SessionRepository extends ExpiringItems {
  getSession(chatId: string, now: Date): Promise<ChatSession | null>;
  /** Writes the whole session (last writer wins); an adapter may drop the oldest messages to fit its item size. */
  putSession(session: ChatSession): Promise<void>;
  getReplay(replaySessionID: string, now: Date): Promise<ChatReplay | null>;
  putReplay(replay: ChatReplay): Promise<void>;
}
