import { randomUUID } from 'node:crypto';
import type { ChatReplay, ChatSession, SessionRepository } from '@memgate/core';
import { describe, expect, it } from 'vitest';

const NOW = new Date('2030-01-01T00:00:00.000Z');
const LATER = '2030-01-31T00:00:00.000Z';

/** A session owned by `ownerId`, expiring at `expiresAt`. */
export function sessionFor(overrides: Partial<ChatSession> = {}): ChatSession {
  return {
    chatId: `chat-${randomUUID()}`,
    ownerId: 'alice',
    title: 'What is memgate?',
    createdAt: NOW.toISOString(),
    updatedAt: NOW.toISOString(),
    expiresAt: LATER,
    messages: [{ id: 'm1', role: 'user', content: 'What is memgate?', createdAt: NOW.toISOString() }],
    ...overrides,
  };
}

export function replayFor(overrides: Partial<ChatReplay> = {}): ChatReplay {
  return {
    replaySessionID: `replay-${randomUUID()}`,
    chatId: 'chat-1',
    ownerId: 'alice',
    createdAt: NOW.toISOString(),
    expiresAt: LATER,
    events: [
      { type: 'thinking_update', content: 'Searching your internal context for "x"' },
      { type: 'metadata', content: { chatId: 'chat-1', title: 't', replaySessionID: 'r' } },
    ],
    ...overrides,
  };
}

async function allExpired(repository: SessionRepository, before: string, limit: number): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | undefined;
  do {
    const page = await repository.listExpired({ before, limit, ...(cursor ? { cursor } : {}) });
    ids.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return ids;
}

/** The SessionRepository contract; every adapter runs it. Each test uses fresh ids, so a shared store is fine. */
export function sessionRepositoryConformance(name: string, factory: () => Promise<SessionRepository>): void {
  describe(`SessionRepository conformance: ${name}`, () => {
    it('gives back a session as it was written, one version further each write', async () => {
      const repository = await factory();
      const session = sessionFor();
      expect(await repository.putSession(session)).toBe(true);
      const read = await repository.getSession(session.chatId, NOW);
      expect(read).toEqual({ ...session, version: 1 });
      const reply = { id: 'm2', role: 'assistant' as const, content: 'A memory layer.', createdAt: LATER };
      const continued = { ...(read as typeof session), messages: [...session.messages, reply] };
      expect(await repository.putSession(continued)).toBe(true);
      expect(await repository.getSession(session.chatId, NOW)).toEqual({ ...continued, version: 2 });
    });

    it('refuses a write based on a version that is no longer stored (two turns on one chat)', async () => {
      const repository = await factory();
      const session = sessionFor();
      await repository.putSession(session);
      const read = (await repository.getSession(session.chatId, NOW)) as typeof session;
      const mine = { id: 'a', role: 'user' as const, content: 'mine', createdAt: LATER };
      const theirs = { id: 'b', role: 'user' as const, content: 'theirs', createdAt: LATER };
      expect(await repository.putSession({ ...read, messages: [...read.messages, theirs] })).toBe(true);
      expect(await repository.putSession({ ...read, messages: [...read.messages, mine] })).toBe(false);
      expect(await repository.putSession(sessionFor({ chatId: session.chatId }))).toBe(false);
      const stored = await repository.getSession(session.chatId, NOW);
      expect(stored?.messages.map((message) => message.content)).toEqual(['What is memgate?', 'theirs']);
    });

    it('treats unknown and expired sessions and replays as absent', async () => {
      const repository = await factory();
      expect(await repository.getSession('no-such-chat', NOW)).toBeNull();
      expect(await repository.getReplay('no-such-replay', NOW)).toBeNull();
      const session = sessionFor({ expiresAt: '2029-12-31T00:00:00.000Z' });
      const replay = replayFor({ expiresAt: '2029-12-31T00:00:00.000Z' });
      await repository.putSession(session);
      await repository.putReplay(replay);
      expect(await repository.getSession(session.chatId, NOW)).toBeNull();
      expect(await repository.getReplay(replay.replaySessionID, NOW)).toBeNull();
    });

    it('gives back a replay with its events in order', async () => {
      const repository = await factory();
      const replay = replayFor();
      await repository.putReplay(replay);
      expect(await repository.getReplay(replay.replaySessionID, NOW)).toEqual(replay);
    });

    it('lists expired sessions and replays oldest first, page by page, and deletes them', async () => {
      const repository = await factory();
      // A far-past window that only this test writes into; other tests' items are filtered out below anyway.
      const at = (minute: number) => `2001-01-01T00:0${minute}:00.000Z`;
      const old = sessionFor({ expiresAt: at(1) });
      const older = replayFor({ expiresAt: at(0) });
      const live = sessionFor({ expiresAt: LATER });
      await Promise.all([repository.putSession(old), repository.putReplay(older), repository.putSession(live)]);
      const before = at(2);
      const ids = (await allExpired(repository, before, 1)).filter(
        (id) => id.includes(old.chatId) || id.includes(older.replaySessionID),
      );
      expect(ids).toEqual([`replay#${older.replaySessionID}`, `chat#${old.chatId}`]);
      expect(await allExpired(repository, before, 10)).not.toContain(`chat#${live.chatId}`);

      await repository.delete([...ids, ...ids, 'chat#never-existed']);
      const after = await allExpired(repository, before, 10);
      expect(after).not.toContain(`chat#${old.chatId}`);
      expect(after).not.toContain(`replay#${older.replaySessionID}`);
      expect(await repository.getSession(live.chatId, NOW)).not.toBeNull();
    });
  });
}
