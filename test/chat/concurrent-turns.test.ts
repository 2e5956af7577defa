import { createDynamoSessionRepository } from '@memgate/adapters';
import { type ChatEvent, createChatService, type Principal } from '@memgate/core';
import { describe, expect, it } from 'vitest';
import { contextStoreWith, scriptedModel } from '../support/chat-fakes.ts';
import { createTestTable } from '../support/dynamo.ts';

// Issue 12 item 16: two turns on one chat at once. Each turn read the session before either saved; the session is
// written with a conditional write (its version), and the turn that loses reads it again and appends its messages
// to what the other turn saved. Over the DynamoDB session repository (DynamoDB Local).

const alice: Principal = { userId: 'alice', orgs: [], scopes: new Set(['chat']) };

async function drain(events: AsyncIterable<ChatEvent>): Promise<ChatEvent[]> {
  const all: ChatEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

async function chatOverDynamo() {
  const { documentClient, tableName } = await createTestTable('turns');
  const sessions = createDynamoSessionRepository({ client: documentClient, tableName });
  let answers = 0;
  const service = createChatService({
    sessions,
    contextStore: contextStoreWith([]),
    model: {
      ...scriptedModel(),
      async *stream(request, options) {
        answers += 1;
        yield* scriptedModel([`answer ${answers}`]).stream(request, options);
      },
    },
    clock: { now: () => new Date() },
    ttlDays: 30,
  });
  return { sessions, service };
}

const signal = new AbortController().signal;

describe('two concurrent turns on one chat', () => {
  it("keeps both turns' questions and answers", async () => {
    const { sessions, service } = await chatOverDynamo();
    const first = await service.open(alice, { chat_history: [{ role: 'user', content: 'first question' }] });
    await drain(first.events(signal));

    // Both turns load the session (same version) before either saves.
    const [a, b] = await Promise.all([
      service.open(alice, { chatId: first.chatId, chat_history: [{ role: 'user', content: 'question A' }] }),
      service.open(alice, { chatId: first.chatId, chat_history: [{ role: 'user', content: 'question B' }] }),
    ]);
    const [eventsA, eventsB] = await Promise.all([drain(a.events(signal)), drain(b.events(signal))]);
    for (const events of [eventsA, eventsB]) expect(events.map((event) => event.type)).toContain('metadata');

    const stored = await sessions.getSession(first.chatId, new Date());
    const contents = stored?.messages.map((message) => message.content) ?? [];
    expect(contents).toHaveLength(6);
    expect(contents.slice(0, 2)).toEqual(['first question', 'answer 1']);
    expect(contents).toEqual(expect.arrayContaining(['question A', 'question B', 'answer 2', 'answer 3']));
    // Each turn's question sits right before its answer.
    for (const question of ['question A', 'question B']) {
      expect(contents[contents.indexOf(question) + 1]).toMatch(/^answer [23]$/);
    }
  });

  it('answers and saves 20 turns sent at once on one chat', async () => {
    // With 5 tries and no wait between them, 7 of 20 turns lost their answer to an error event after the model gave
    // it ("the answer could not be completed").
    const { sessions, service } = await chatOverDynamo();
    const first = await service.open(alice, { chat_history: [{ role: 'user', content: 'first question' }] });
    await drain(first.events(signal));
    const questions = Array.from({ length: 20 }, (_, n) => `question ${n}`);
    const turns = await Promise.all(
      questions.map((content) =>
        service.open(alice, { chatId: first.chatId, chat_history: [{ role: 'user', content }] }),
      ),
    );
    const results = await Promise.allSettled(turns.map((turn) => drain(turn.events(signal))));
    expect(results.filter((result) => result.status === 'rejected')).toEqual([]);
    const stored = await sessions.getSession(first.chatId, new Date());
    const contents = stored?.messages.map((message) => message.content) ?? [];
    expect(contents).toHaveLength(42);
    expect(contents).toEqual(expect.arrayContaining(questions));
  });
});
