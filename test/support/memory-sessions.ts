import type { ChatReplay, ChatSession, Page, SessionRepository } from '@memgate/core';

/** An in-memory SessionRepository (same contract as the DynamoDB one), for unit tests of the chat service. */
export function createMemorySessionRepository(): SessionRepository & { sessions: Map<string, ChatSession> } {
  const sessions = new Map<string, ChatSession>();
  const replays = new Map<string, ChatReplay>();
  const copy = <T>(value: T): T => structuredClone(value);
  const expiring = () => [
    ...[...sessions.values()].map((s) => ({ id: `chat#${s.chatId}`, at: s.expiresAt })),
    ...[...replays.values()].map((r) => ({ id: `replay#${r.replaySessionID}`, at: r.expiresAt })),
  ];
  return {
    sessions,
    async getSession(chatId, now) {
      const found = sessions.get(chatId);
      return found && found.expiresAt > now.toISOString() ? copy(found) : null;
    },
    async putSession(session) {
      const stored = sessions.get(session.chatId);
      if (stored ? stored.version !== session.version : session.version !== undefined) return false;
      sessions.set(session.chatId, copy({ ...session, version: (session.version ?? 0) + 1 }));
      return true;
    },
    async getReplay(id, now) {
      const found = replays.get(id);
      return found && found.expiresAt > now.toISOString() ? copy(found) : null;
    },
    async putReplay(replay) {
      replays.set(replay.replaySessionID, copy(replay));
    },
    async listExpired({ before, cursor, limit }): Promise<Page<string>> {
      const sorted = expiring()
        .filter((item) => item.at < before)
        .map((item) => `${item.at}#${item.id}`)
        .sort();
      const start = cursor ? sorted.findIndex((key) => key > cursor) : 0;
      const page = start < 0 ? [] : sorted.slice(start, start + limit);
      const more = start >= 0 && start + limit < sorted.length;
      return {
        items: page.map((key) => key.slice(key.indexOf('#') + 1)),
        nextCursor: more ? (page.at(-1) ?? null) : null,
      };
    },
    async delete(ids) {
      for (const id of ids) {
        if (id.startsWith('chat#')) sessions.delete(id.slice('chat#'.length));
        if (id.startsWith('replay#')) replays.delete(id.slice('replay#'.length));
      }
    },
  };
}
