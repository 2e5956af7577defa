import type { Principal } from '@memgate/core';
import { afterAll, describe, expect, it } from 'vitest';
import { jsonEvents, metadataOf, readSse, sseReader } from '../support/sse.ts';
import { startUpstreamStub } from '../support/upstream-stub.ts';
import { startChat } from './harness.ts';

// The chat with DEFAULT_MODEL_BASE_URL set: the proxy's upstream model client answers, through the stub.
const stub = await startUpstreamStub({ behavior: { reply: 'Beans are in the top left cupboard.', model: 'stub-llm' } });
const chat = await startChat({
  DEFAULT_MODEL_BASE_URL: stub.url,
  DEFAULT_MODEL_API_KEY: 'sk-operator-key-0123456789',
  DEFAULT_MODEL_UPSTREAM_ID: 'stub-llm',
});
afterAll(async () => {
  await chat.close();
  await stub.close();
});

const erin: Principal = { userId: 'erin', orgs: [], scopes: new Set(['context:write']) };
await chat.store.add(erin, {
  documents: [{ fileName: 'kitchen.md', content: 'Coffee beans are kept in the top left cupboard.' }],
});
const question = { role: 'user', content: 'Where are the coffee beans kept?' };
const tools = [
  {
    type: 'function',
    function: { name: 'open_cupboard', description: 'Opens one', parameters: { type: 'object' }, strict: true },
  },
];

describe('chat on an upstream default model', () => {
  it('sends the persona, the injected context, the history and the tools upstream, and streams its answer', async () => {
    stub.setBehavior({ reply: 'Beans are in the top left cupboard.', model: 'stub-llm' });
    const response = await chat.ask('erin', {
      chat_history: [{ role: 'system', content: 'Be brief.' }, question],
      persona: 'technical',
      tools,
    });
    const events = jsonEvents(await readSse(response));
    expect(events.map((event) => event.type)).toEqual([
      'thinking_update',
      'thinking_update',
      'thinking_update',
      'final_response',
      'metadata',
    ]);
    expect(events[2]?.content).toBe('Composing the answer with memgate/default');
    expect(events[3]).toMatchObject({
      content: 'Beans are in the top left cupboard.',
      json: { model: 'stub-llm', usage: { prompt_tokens: 10 }, sources: [{ fileName: 'kitchen.md' }], tool_calls: [] },
    });
    const sent = stub.requests.at(-1);
    expect(sent?.headers.authorization).toBe('Bearer sk-operator-key-0123456789');
    const body = sent?.body as { model: string; messages: { role: string; content: string }[]; tools: unknown[] };
    expect(body.model).toBe('stub-llm');
    expect(body.tools).toEqual(tools);
    expect(body.messages.map((message) => message.role)).toEqual(['system', 'system', 'system', 'user']);
    expect(body.messages[0]?.content).toContain('technical');
    expect(body.messages[1]?.content).toBe('Be brief.');
    expect(body.messages[2]?.content).toContain('top left cupboard');
  });

  it('ends an upstream failure mid-stream with an error event and [DONE]', async () => {
    stub.setBehavior({ reply: 'one two three four five', failAfterChunks: 2 });
    const read = await readSse(await chat.ask('erin', { chat_history: [question] }));
    const events = jsonEvents(read);
    expect(events.filter((event) => event.type === 'final_response')).toEqual([]);
    expect(events.at(-2)?.type).toBe('metadata');
    expect(events.at(-1)).toEqual({ content: null, error: { message: expect.any(String) } });
    expect(read.data.join('\n')).not.toContain('sk-operator-key');
  });

  it('ends an answer whose upstream closed before [DONE] or a finish_reason with an error event, not as the answer', async () => {
    const chunk = (content: string) =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
    stub.setBehavior({ garbage: chunk('The beans are ') + chunk('in the ') });
    const events = jsonEvents(await readSse(await chat.ask('erin', { chat_history: [question] })));
    expect(events.filter((event) => event.type === 'final_response')).toEqual([]);
    expect(events.at(-2)?.type).toBe('metadata');
    expect(events.at(-1)).toEqual({ content: null, error: { message: 'upstream stream ended before the answer' } });
  });

  it('ends an answer whose upstream sent data: [DONE] alone with an error event, not an empty answer', async () => {
    stub.setBehavior({ garbage: 'data: [DONE]\n\n' });
    const events = jsonEvents(await readSse(await chat.ask('erin', { chat_history: [question] })));
    expect(events.filter((event) => event.type === 'final_response')).toEqual([]);
    expect(events.at(-2)?.type).toBe('metadata');
    expect(events.at(-1)).toEqual({ content: null, error: { message: 'upstream answered without events' } });
  });

  it('passes an upstream error status on as an error event', async () => {
    stub.setBehavior({ error: { status: 503, body: { error: { message: 'overloaded' } } } });
    const events = jsonEvents(await readSse(await chat.ask('erin', { chat_history: [question] })));
    expect(events.at(-1)).toEqual({ content: null, error: { message: 'upstream answered with status 503' } });
  });

  it('names a new chat whose first answer failed (429) before the error event, so the client can retry in it', async () => {
    stub.setBehavior({ error: { status: 429, body: { error: { message: 'slow down' } } } });
    const failed = jsonEvents(await readSse(await chat.ask('erin', { chat_history: [question] })));
    expect(failed.map((event) => event.type ?? 'error').slice(-2)).toEqual(['metadata', 'error']);
    const { chatId } = metadataOf(failed.slice(0, -1));
    stub.setBehavior({ reply: 'Top left cupboard.' });
    const retried = jsonEvents(await readSse(await chat.ask('erin', { chatId, chat_history: [question] })));
    expect(metadataOf(retried).chatId).toBe(chatId);
    const sent = stub.requests.at(-1)?.body as { messages: { role: string; content: string }[] };
    expect(sent.messages.filter((message) => message.role === 'user')).toEqual([question]);
  });

  it('aborts the upstream call when the client disconnects', async () => {
    stub.setBehavior({ hang: true });
    const received = stub.nextRequest();
    const disconnected = stub.nextDisconnect();
    const reader = sseReader(await chat.ask('erin', { chat_history: [question] }));
    await received;
    for (let step = 0; step < 3; step += 1) expect((await reader.next())?.kind).toBe('data');
    await reader.cancel();
    const request = await disconnected;
    expect(request.path).toContain('/chat/completions');
  });

  it('ends an answer still arriving at PROXY_TOTAL_TIMEOUT_MS with an error event and [DONE], aborting the upstream', async () => {
    const limited = await startChat({ DEFAULT_MODEL_BASE_URL: stub.url, PROXY_TOTAL_TIMEOUT_MS: '1000' });
    try {
      stub.setBehavior({ chunks: ['Beans ', 'are ', 'here'], stallAfterChunks: 1 });
      const disconnected = stub.nextDisconnect();
      const read = await readSse(await limited.ask('erin', { chat_history: [question] }));
      expect(read.data.at(-1)).toBe('[DONE]');
      const events = jsonEvents(read);
      expect(events.filter((event) => event.type === 'final_response')).toEqual([]);
      expect(events.at(-1)).toEqual({
        content: null,
        error: { message: 'the answer took longer than 1 s and was cut' },
      });
      expect((await disconnected).path).toContain('/chat/completions');
    } finally {
      await limited.close();
    }
  });

  it('refuses an answer streaming past 16 MB with an error event, and stops reading the upstream', async () => {
    // The answer is held whole until final_response: an endless one grew to V8's string limit (~750 MB of RSS).
    stub.setBehavior({ flood: { bytes: 64 * 1024 * 1024 } });
    const disconnected = stub.nextDisconnect();
    const read = await readSse(await chat.ask('erin', { chat_history: [question] }));
    const events = jsonEvents(read);
    expect(events.filter((event) => event.type === 'final_response')).toEqual([]);
    expect(events.at(-2)?.type).toBe('metadata');
    expect(events.at(-1)).toEqual({
      content: null,
      error: { message: 'upstream answered with more than 16 MB; the answer was dropped' },
    });
    expect(read.data.at(-1)).toBe('[DONE]');
    expect((await disconnected).path).toContain('/chat/completions');
    expect(stub.flood.written).toBeLessThan(64 * 1024 * 1024);
  });

  it('delivers an answer too long for its replay record whole, and replays it cut to fit', async () => {
    const answer = 'word '.repeat(100_000); // 500 KB: more than a DynamoDB item (400 KB) holds
    stub.setBehavior({ chunks: [answer] });
    const events = jsonEvents(await readSse(await chat.ask('erin', { chat_history: [question] })));
    expect(events.map((event) => event.type).slice(-2)).toEqual(['final_response', 'metadata']);
    expect(events.at(-2)?.content).toBe(answer);
    const { replaySessionID } = metadataOf(events);
    const replay = jsonEvents(await readSse(await chat.replay('erin', replaySessionID)));
    expect(replay.map((event) => event.type)).toEqual(events.map((event) => event.type));
    const replayed = replay.at(-2)?.content as string;
    expect(replayed.length).toBeGreaterThan(100_000);
    expect(answer.startsWith(replayed)).toBe(true);
    expect(replay.at(-1)).toEqual(events.at(-1));
  });

  it('delivers a tool call whose arguments are too long for its replay record whole, and replays them cut', async () => {
    // The replay item is one DynamoDB item (400 KB): 500 KB of arguments failed the answer after the model gave it.
    const text = 'z'.repeat(500_000);
    const args = JSON.stringify({ text });
    stub.setBehavior({ toolCall: { id: 'call_save', name: 'open_cupboard', arguments: [args] } });
    const events = jsonEvents(await readSse(await chat.ask('erin', { chat_history: [question], tools })));
    expect(events.map((event) => event.type).slice(-2)).toEqual(['final_response', 'metadata']);
    const callsOf = (event: unknown) =>
      (event as { json: { tool_calls: { id: string; function: { arguments: string } }[] } }).json.tool_calls;
    expect(callsOf(events.at(-2))[0]?.function.arguments).toBe(args);
    const replay = jsonEvents(await readSse(await chat.replay('erin', metadataOf(events).replaySessionID)));
    const replayed = callsOf(replay.at(-2))[0];
    expect(replayed?.id).toBe('call_save');
    expect(replayed?.function.arguments.length).toBeGreaterThan(100_000);
    expect(args.startsWith(replayed?.function.arguments ?? '-')).toBe(true);
  });
});
