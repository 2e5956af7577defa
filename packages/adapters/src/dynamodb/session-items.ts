import { type ChatEvent, type ChatReplay, type ChatSession, cutWhole, type StoredMessage } from '@memgate/core';
import { TABLE_KEYS } from './table.ts';

const { byExpiry } = TABLE_KEYS.indexes;
/** The one byExpiry partition: chat items expire at a modest rate, so the sweep reads a single ordered list. */
export const EXPIRING_PARTITION = 'chat#expiring';
export const SESSION_SORT = 'session';
export const REPLAY_SORT = 'replay';
/** DynamoDB items stop at 400 KB; the message list keeps the newest messages that fit under this. */
const MAX_MESSAGES_BYTES = 300_000;

export const sessionKey = (chatId: string) => ({ pk: `chat#${chatId}`, sk: SESSION_SORT });
export const replayKey = (id: string) => ({ pk: `replay#${id}`, sk: REPLAY_SORT });

/** TTL in epoch seconds for DynamoDB, plus the byExpiry keys the cleanup sweeps. */
function expiryAttributes(pk: string, expiresAt: string) {
  return {
    [TABLE_KEYS.ttl]: Math.ceil(Date.parse(expiresAt) / 1000),
    expiresAtIso: expiresAt,
    [byExpiry.partition]: EXPIRING_PARTITION,
    [byExpiry.sort]: `${expiresAt}#${pk}`,
  };
}

const bytesOf = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

/**
 * Oldest messages dropped until the list fits, but never the last question (a user message) nor what follows it:
 * the turn being saved. When that turn alone is too large (a question of megabytes), its longest message is cut,
 * between characters. Each dropped message is measured once: measuring the whole list again after each drop held the
 * loop 5.6 s for a session of 2,800 short messages that a 2 MB question pushed over the limit.
 */
export function fitMessages(messages: readonly StoredMessage[]): StoredMessage[] {
  const sizes = messages.map(bytesOf);
  // JSON of a list: its brackets, its items and a comma between each two.
  let bytes = sizes.reduce((sum, size) => sum + size, 1 + messages.length);
  const question = messages.findLastIndex((message) => message.role === 'user');
  const lastTurn = question >= 0 ? question : messages.length - 1;
  let first = 0;
  while (first < lastTurn && bytes > MAX_MESSAGES_BYTES) bytes -= (sizes[first++] ?? 0) + 1;
  const kept = messages.slice(first);
  return bytes > MAX_MESSAGES_BYTES ? cutToFit(kept, bytes) : kept;
}

/** `kept` (the last turn, `bytes` as JSON) with its longest message cut until the list fits. */
function cutToFit(kept: StoredMessage[], bytes: number): StoredMessage[] {
  let size = bytes;
  while (size > MAX_MESSAGES_BYTES) {
    const at = kept.reduce(
      (longest, message, index) => (message.content.length > (kept[longest]?.content.length ?? 0) ? index : longest),
      0,
    );
    const longest = kept[at];
    if (!longest || longest.content === '') break;
    // Cut by the share of its bytes that are over (a tenth at least, so uneven text still converges).
    const share = Math.min(0.9, 1 - (size - MAX_MESSAGES_BYTES) / bytesOf(longest.content));
    kept[at] = { ...longest, content: cutWhole(longest.content, Math.floor(longest.content.length * share)) };
    size = bytesOf(kept);
  }
  return kept;
}

export function sessionToItem(session: ChatSession): Record<string, unknown> {
  const key = sessionKey(session.chatId);
  return {
    ...key,
    chatId: session.chatId,
    ownerId: session.ownerId,
    title: session.title,
    createdAt: session.createdAt,
    updatedAt: session.updatedAt,
    messages: fitMessages(session.messages),
    ...expiryAttributes(key.pk, session.expiresAt),
  };
}

export function sessionFromItem(item: Record<string, unknown>): ChatSession {
  return {
    chatId: item.chatId as string,
    ownerId: item.ownerId as string,
    title: item.title as string,
    createdAt: item.createdAt as string,
    updatedAt: item.updatedAt as string,
    expiresAt: item.expiresAtIso as string,
    messages: (item.messages ?? []) as StoredMessage[],
    // An item written before versions existed reads as version 0.
    version: typeof item.version === 'number' ? item.version : 0,
  };
}

/**
 * The events as the replay item holds them: as recorded, or, when they would outgrow the item size limit (an answer
 * of hundreds of kilobytes), with the answer's text and its tool calls' arguments cut to fit, as a session cuts a
 * lone oversized message. The live stream had the whole answer; a replay that could not be stored would have failed
 * that answer instead (as a tool call of 500 KB of arguments did).
 */
export function fitReplayEvents(events: readonly ChatEvent[]): string {
  let text = JSON.stringify(events);
  const at = events.findIndex((event) => event.type === 'final_response');
  const final = events[at];
  if (Buffer.byteLength(text) <= MAX_MESSAGES_BYTES || final?.type !== 'final_response') return text;
  let { content } = final;
  let calls = final.json.tool_calls;
  const cut = (value: string, share: number) => value.slice(0, Math.floor(value.length * share));
  const cuttable = () => content !== '' || calls.some((call) => call.function.arguments !== '');
  while (cuttable() && Buffer.byteLength(text) > MAX_MESSAGES_BYTES) {
    const share = MAX_MESSAGES_BYTES / Buffer.byteLength(text) / 1.1;
    content = cut(content, share);
    calls = calls.map((call) => ({
      ...call,
      function: { ...call.function, arguments: cut(call.function.arguments, share) },
    }));
    text = JSON.stringify(events.with(at, { ...final, content, json: { ...final.json, tool_calls: calls } }));
  }
  return text;
}

export function replayToItem(replay: ChatReplay): Record<string, unknown> {
  const key = replayKey(replay.replaySessionID);
  return {
    ...key,
    replaySessionID: replay.replaySessionID,
    chatId: replay.chatId,
    ownerId: replay.ownerId,
    createdAt: replay.createdAt,
    // One string: replayed byte-for-byte as recorded, and no per-attribute marshalling cost.
    events: fitReplayEvents(replay.events),
    ...expiryAttributes(key.pk, replay.expiresAt),
  };
}

export function replayFromItem(item: Record<string, unknown>): ChatReplay {
  return {
    replaySessionID: item.replaySessionID as string,
    chatId: item.chatId as string,
    ownerId: item.ownerId as string,
    createdAt: item.createdAt as string,
    expiresAt: item.expiresAtIso as string,
    events: JSON.parse(item.events as string) as ChatEvent[],
  };
}

/** An item past its expiry is absent: DynamoDB's TTL deletes lag by up to days. */
export const isLive = (item: Record<string, unknown> | undefined, now: Date): item is Record<string, unknown> =>
  item !== undefined && typeof item.expiresAtIso === 'string' && item.expiresAtIso > now.toISOString();
