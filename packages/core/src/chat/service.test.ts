import { describe, expect, it } from 'vitest';
import { chunkOf, fakeChat, type ScriptedModel, scriptedModel } from '../../../../test/support/chat-fakes.ts';
import type { Principal } from '../auth/index.ts';
import type { SearchHit } from '../context/service.ts';
import type { ChatModel } from '../model/index.ts';
import type { ChatEvent } from './events.ts';
import { PERSONAS } from './personas.ts';
import type { ChatRequest } from './service.ts';

const alice: Principal = { userId: 'alice', orgs: [], scopes: new Set(['chat']) };
const bob: Principal = { userId: 'bob', orgs: [], scopes: new Set(['chat']) };
const clock = { now: () => new Date('2030-01-01T00:00:00.000Z') };

const chunk = chunkOf;
const fakeModel = (pieces?: string[], extra: string[] = []) => scriptedModel(pieces, { extra });
const setup = (hits?: SearchHit[], model?: ScriptedModel) =>
  fakeChat({ ...(hits ? { hits } : {}), ...(model ? { model } : {}) });

async function collect(events: AsyncIterable<ChatEvent>): Promise<ChatEvent[]> {
  const all: ChatEvent[] = [];
  for await (const event of events) all.push(event);
  return all;
}

const ask = (content: string, more: Partial<ChatRequest> = {}): ChatRequest => ({
  chat_history: [{ role: 'user', content }],
  ...more,
});

describe('chat service', () => {
  it('tells what it searched and found, then answers with sources, then names the session', async () => {
    const { service, contextStore } = setup();
    const turn = await service.open(alice, ask('What is the answer?', { scope: 'external' }));
    const events = await collect(turn.events(new AbortController().signal));
    expect(events.map((event) => event.type)).toEqual([
      'thinking_update',
      'thinking_update',
      'thinking_update',
      'final_response',
      'metadata',
    ]);
    expect(events[0]?.content).toBe('Searching your external context for "What is the answer?"');
    expect(events[1]?.content).toBe('Found 3 relevant passages in 2 documents');
    expect(events[2]?.content).toBe('Composing the answer with fake/model');
    expect(contextStore.queries[0]).toMatchObject({ query: 'What is the answer?', scope: 'external' });
    const final = events[3];
    expect(final).toMatchObject({ content: 'The answer is 42.', json: { model: 'fake/model', tool_calls: [] } });
    if (final?.type !== 'final_response') throw new Error('no final response');
    expect(final.json.sources).toEqual([
      { contextId: 'a-c1', documentId: 'a', fileName: 'a.md', score: 0.8 },
      { contextId: 'a-c2', documentId: 'a', fileName: 'a.md', score: 0.7 },
      { contextId: 'b-c1', documentId: 'b', fileName: 'b.md', score: 0.8 },
    ]);
    expect(final.json.usage.completion_tokens).toBeGreaterThan(0);
    expect(events[4]).toEqual({
      type: 'metadata',
      content: { chatId: turn.chatId, title: 'What is the answer?', replaySessionID: expect.any(String) },
    });
  });

  it('cuts a long question for its title and search step between characters, never inside an emoji', async () => {
    const { service } = setup();
    const question = `x${'😀'.repeat(50)}`;
    const turn = await service.open(alice, ask(question));
    const events = await collect(turn.events(new AbortController().signal));
    const metadata = events.find((event) => event.type === 'metadata');
    if (metadata?.type !== 'metadata') throw new Error('no metadata');
    // 'x' and 39 emoji (79 UTF-16 units; the 80th would be half of the 40th), then the ellipsis.
    expect(metadata.content.title).toBe(`x${'😀'.repeat(39)}…`);
    expect(events[0]?.content).toBe(`Searching your internal context for "x${'😀'.repeat(29)}…"`);
    for (const event of events) expect(JSON.stringify(event)).not.toMatch(/\\ud83d/);
  });

  it('says so when no stored context matched', async () => {
    const { service } = setup([]);
    const events = await collect((await service.open(alice, ask('Anything?'))).events(new AbortController().signal));
    expect(events[1]?.content).toBe('No stored context matched');
  });

  it('sends the persona prompt, the injected context and the question to the model', async () => {
    const { service, model } = setup();
    await collect(
      (await service.open(alice, ask('Why?', { persona: 'concise' }))).events(new AbortController().signal),
    );
    const messages = model.requests[0]?.messages ?? [];
    expect(messages[0]).toEqual({ role: 'system', content: PERSONAS.concise });
    expect(messages[1]?.content).toContain('passage 1 of a');
    expect(messages.at(-1)).toEqual({ role: 'user', content: 'Why?' });

    await collect(
      (await service.open(alice, ask('Why?', { persona: 'Answer like a pirate.' }))).events(
        new AbortController().signal,
      ),
    );
    expect(model.requests[1]?.messages[0]).toEqual({ role: 'system', content: 'Answer like a pirate.' });
  });

  it('passes tools to the model and returns the tool calls it asks for, merged from their deltas', async () => {
    const calls = [
      chunk({
        tool_calls: [
          { index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"ci' } },
        ],
      }),
      chunk({ tool_calls: [{ index: 0, function: { arguments: 'ty":"Oslo"}' } }] }),
    ];
    const { service, model } = setup([], fakeModel([], calls));
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }];
    const events = await collect(
      (await service.open(alice, ask('Weather?', { tools }))).events(new AbortController().signal),
    );
    expect(model.requests[0]?.tools).toEqual(tools);
    expect(events.find((event) => event.type === 'final_response')).toMatchObject({
      json: {
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
        ],
      },
    });
  });

  it('continues a session: earlier messages reach the model, the title stays, new messages are appended', async () => {
    const { service, model, sessions } = setup([]);
    const first = await service.open(alice, ask('First question'));
    await collect(first.events(new AbortController().signal));
    const second = await service.open(alice, ask('Second question', { chatId: first.chatId }));
    const events = await collect(second.events(new AbortController().signal));
    expect(model.requests[1]?.messages.slice(1)).toEqual([
      { role: 'user', content: 'First question' },
      { role: 'assistant', content: 'The answer is 42.' },
      { role: 'user', content: 'Second question' },
    ]);
    expect(events.at(-1)?.content).toMatchObject({ chatId: first.chatId, title: 'First question' });
    const stored = await sessions.getSession(first.chatId, clock.now());
    expect(stored?.messages.map((message) => message.content)).toEqual([
      'First question',
      'The answer is 42.',
      'Second question',
      'The answer is 42.',
    ]);
    expect(stored?.expiresAt).toBe('2030-01-31T00:00:00.000Z');
  });

  it("refuses another user's chat (403) and an unknown chat (400)", async () => {
    const { service } = setup([]);
    const turn = await service.open(alice, ask('Mine'));
    await collect(turn.events(new AbortController().signal));
    await expect(service.open(bob, ask('Let me in', { chatId: turn.chatId }))).rejects.toMatchObject({
      kind: 'permission',
    });
    await expect(service.open(alice, ask('Hello', { chatId: 'nope' }))).rejects.toMatchObject({ kind: 'validation' });
  });

  it('replays the recorded events to their owner only', async () => {
    const { service } = setup();
    const events = await collect((await service.open(alice, ask('Replay me'))).events(new AbortController().signal));
    const metadata = events.at(-1);
    if (metadata?.type !== 'metadata') throw new Error('no metadata');
    expect(await service.replay(alice, metadata.content.replaySessionID)).toEqual(events);
    await expect(service.replay(bob, metadata.content.replaySessionID)).rejects.toMatchObject({ kind: 'permission' });
    await expect(service.replay(alice, 'unknown')).rejects.toMatchObject({ kind: 'not_found' });
  });

  it('keeps the question in the session when the answer is cut short', async () => {
    const model: ChatModel = {
      id: 'hanging',
      complete: () => Promise.reject(new Error('unused')),
      async *stream(_request, { signal }) {
        await new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason)));
        yield '';
      },
    };
    const { service, sessions } = setup([], model as ScriptedModel);
    const turn = await service.open(alice, ask('Will you answer?'));
    const controller = new AbortController();
    const events = turn.events(controller.signal);
    for (let step = 0; step < 3; step += 1) await events.next();
    const pending = events.next();
    controller.abort();
    await expect(pending).rejects.toThrow();
    const stored = await sessions.getSession(turn.chatId, clock.now());
    expect(stored?.messages.map((message) => message.content)).toEqual(['Will you answer?']);
  });
});
