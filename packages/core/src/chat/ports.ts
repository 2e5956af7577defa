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
  /**
   * How many times the session has been written, as read (absent: never written). A write succeeds only while the
   * stored session is still at this version (optimistic concurrency: two turns on one chat cannot overwrite each
   * other's messages).
   */
  version?: number;
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
  /**
   * Writes the whole session at `session.version + 1`, only if the stored one is still at `session.version` (absent:
   * only if none is stored); false, writing nothing, when another write came first. An adapter may drop the oldest
   * messages to fit its item size.
   */
  putSession(session: ChatSession): Promise<boolean>;
  getReplay(replaySessionID: string, now: Date): Promise<ChatReplay | null>;
  putReplay(replay: ChatReplay): Promise<void>;
}
