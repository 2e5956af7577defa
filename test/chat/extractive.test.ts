import type { Principal } from '@memgate/core';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonEvents, metadataOf, readSse } from '../support/sse.ts';
import { startChat } from './harness.ts';

// The chat end to end with no upstream configured: the answer comes from the embedded extractive responder.
const chat = await startChat();
afterAll(() => chat.close());

const erin: Principal = { userId: 'erin', orgs: [], scopes: new Set(['context:write']) };
await chat.store.add(erin, {
  documents: [
    {
      fileName: 'kitchen.md',
      content: 'The dishwasher runs every evening at eight. Coffee beans are kept in the top left cupboard.',
    },
    { fileName: 'garden.md', content: 'The tomatoes are watered every morning. The shed key hangs by the back door.' },
  ],
});

describe('chat on the extractive responder and the real context store', () => {
  it('answers from the stored document, names its source, and saves the session in DynamoDB', async () => {
    const response = await chat.ask('erin', {
      chat_history: [{ role: 'user', content: 'Where are the coffee beans kept?' }],
    });
    expect(response.status).toBe(200);
    const events = jsonEvents(await readSse(response));
    expect(events[0]).toEqual({
      type: 'thinking_update',
      content: 'Searching your internal context for "Where are the coffee beans kept?"',
    });
    expect(events[1]?.content).toMatch(/^Found \d+ relevant passages? in 1 document$/);
    expect(events[2]).toEqual({ type: 'thinking_update', content: 'Composing the answer with memgate/extractive' });
    const final = events.find((event) => event.type === 'final_response') as {
      content: string;
      json: { sources: { fileName: string; score: number }[]; model: string };
    };
    expect(final.content).toContain('top left cupboard');
    expect(final.json.model).toBe('memgate/extractive');
    expect(final.json.sources[0]).toMatchObject({ fileName: 'kitchen.md', score: expect.any(Number) });

    const { chatId, title } = metadataOf(events);
    expect(title).toBe('Where are the coffee beans kept?');
    const stored = await chat.sessions.getSession(chatId, new Date());
    expect(stored?.ownerId).toBe('erin');
    expect(stored?.messages.map((message) => message.role)).toEqual(['user', 'assistant']);
    expect(stored?.messages[1]?.content).toBe(final.content);
  });

  it("says so when nothing matched, and never shows another user's context", async () => {
    const events = jsonEvents(
      await readSse(
        await chat.ask('frank', { chat_history: [{ role: 'user', content: 'Where are the coffee beans?' }] }),
      ),
    );
    expect(events[1]).toEqual({ type: 'thinking_update', content: 'No stored context matched' });
    const final = events.find((event) => event.type === 'final_response') as { content: string; json: { sources: [] } };
    expect(final.json.sources).toEqual([]);
    expect(final.content).not.toContain('cupboard');
  });

  it('continues a session by chatId and replays each answer to its owner only', async () => {
    const first = jsonEvents(
      await readSse(
        await chat.ask('erin', { chat_history: [{ role: 'user', content: 'When does the dishwasher run?' }] }),
      ),
    );
    const { chatId } = metadataOf(first);
    const secondRead = await readSse(
      await chat.ask('erin', {
        chatId,
        chat_history: [{ role: 'user', content: 'When are the tomatoes watered?' }],
      }),
    );
    const second = jsonEvents(secondRead);
    expect(metadataOf(second)).toMatchObject({ chatId, title: 'When does the dishwasher run?' });
    const stored = await chat.sessions.getSession(chatId, new Date());
    expect(stored?.messages).toHaveLength(4);

    const { replaySessionID } = metadataOf(second);
    const replay = await chat.replay('erin', replaySessionID);
    expect((await readSse(replay)).data).toEqual(secondRead.data);
    expect((await chat.replay('frank', replaySessionID)).status).toBe(403);
    expect((await chat.ask('frank', { chatId, chat_history: [{ role: 'user', content: 'hi' }] })).status).toBe(403);
  });
});
