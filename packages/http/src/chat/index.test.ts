import { describe, expect, it } from 'vitest';
import { fakeChat } from '../../../../test/support/chat-fakes.ts';
import { jsonEvents, metadataOf, readSse } from '../../../../test/support/sse.ts';
import { TEST_SECRET, tokenFor } from '../../../../test/support/tokens.ts';
import { createTokenVerifier } from '../auth/index.ts';
import { silentLogger } from '../observability/index.ts';
import { createChatApp } from './index.ts';

const verifier = createTokenVerifier({ kind: 'hs256', secret: TEST_SECRET });

function chatApp(options: Parameters<typeof fakeChat>[0] = {}) {
  const chat = fakeChat(options);
  const app = createChatApp({ verifier, logger: silentLogger, service: chat.service });
  return { app, ...chat };
}

async function post(app: ReturnType<typeof chatApp>['app'], body: unknown, user = 'alice', scope = 'chat') {
  const token = await tokenFor(user, { scope });
  return app.request('/api/v1/chat/generate/stream', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const ask = (content: string, more: Record<string, unknown> = {}) => ({
  chat_history: [{ role: 'user', content }],
  ...more,
});

describe('POST /api/v1/chat/generate/stream', () => {
  it('streams thinking updates, the answer with sources, metadata and [DONE], in that order', async () => {
    const { app } = chatApp();
    const response = await post(app, ask('What is the answer?'));
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/event-stream');
    expect(response.headers.get('cache-control')).toBe('no-cache');
    const events = jsonEvents(await readSse(response));
    expect(events.map((event) => event.type)).toEqual([
      'thinking_update',
      'thinking_update',
      'thinking_update',
      'final_response',
      'metadata',
    ]);
    expect(events[1]).toEqual({ type: 'thinking_update', content: 'Found 3 relevant passages in 2 documents' });
    expect(events[3]).toMatchObject({
      content: 'The answer is 42.',
      json: {
        sources: [{ contextId: 'a-c1', documentId: 'a', fileName: 'a.md', score: 0.8 }, {}, {}],
        model: 'fake/model',
        usage: { total_tokens: expect.any(Number) },
        tool_calls: [],
      },
    });
    expect(events[4]).toEqual({
      type: 'metadata',
      content: { chatId: expect.any(String), title: 'What is the answer?', replaySessionID: expect.any(String) },
    });
  });

  it.each([
    ['an empty chat_history', { chat_history: [] }, 'chat_history'],
    ['no chat_history', {}, 'chat_history'],
    [
      'more than 500 messages',
      { chat_history: Array.from({ length: 501 }, () => ({ role: 'user', content: 'x' })) },
      'chat_history',
    ],
    ['an unknown role', { chat_history: [{ role: 'robot', content: 'x' }] }, 'role'],
    [
      'a last message not from the user',
      {
        chat_history: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: 'y' },
        ],
      },
      'user',
    ],
    ['an empty last message', { chat_history: [{ role: 'user', content: ' \n ' }] }, 'must not be empty'],
    ['a tool that is not a function tool', ask('x', { tools: [{ type: 'code_interpreter' }] }), 'tools'],
    ['a function tool without a name', ask('x', { tools: [{ type: 'function', function: {} }] }), 'tools'],
    ['an unknown scope', ask('x', { scope: 'everywhere' }), 'scope'],
    ['a persona that is not text', ask('x', { persona: 7 }), 'persona'],
    ['malformed JSON', '{"chat_history": [', 'JSON'],
  ])('refuses %s with a JSON 400 before any stream', async (_name, body, mentioned) => {
    const { app, model } = chatApp();
    const response = await post(app, body);
    expect(response.status).toBe(400);
    expect(response.headers.get('content-type')).toContain('application/json');
    const json = (await response.json()) as { message: string };
    expect(json.message).toContain(mentioned);
    expect(model.requests).toHaveLength(0);
  });

  it('answers 401 without a token and 403 without the chat scope', async () => {
    const { app } = chatApp();
    const anonymous = await app.request('/api/v1/chat/generate/stream', {
      method: 'POST',
      body: JSON.stringify(ask('x')),
    });
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ message: expect.any(String) });
    const unscoped = await post(app, ask('x'), 'alice', 'context:read');
    expect(unscoped.status).toBe(403);
    expect(await unscoped.json()).toEqual({ message: expect.stringContaining('chat') });
  });

  it('refuses a body declared as text/plain with 415 as JSON, before any stream', async () => {
    const { app } = chatApp();
    const response = await app.request('/api/v1/chat/generate/stream', {
      method: 'POST',
      headers: { authorization: `Bearer ${await tokenFor('alice', { scope: 'chat' })}`, 'content-type': 'text/plain' },
      body: JSON.stringify(ask('x')),
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toEqual({
      message: 'Content-Type text/plain is not JSON; send the body as application/json',
    });
  });

  it('answers another method on its routes with 405 and Allow, as JSON', async () => {
    const { app } = chatApp();
    const got = await app.request('/api/v1/chat/generate/stream');
    expect([got.status, got.headers.get('allow')]).toEqual([405, 'POST']);
    expect(await got.json()).toEqual({ message: 'GET is not allowed on /api/v1/chat/generate/stream; use POST' });
    const posted = await app.request('/api/v1/chat/replay/abc', { method: 'POST' });
    expect([posted.status, posted.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('takes persona, scope and tools sent as null as left out', async () => {
    const left = chatApp();
    const nulls = chatApp();
    const leftEvents = jsonEvents(await readSse(await post(left.app, ask('What is the answer?'))));
    const nullEvents = jsonEvents(
      await readSse(await post(nulls.app, ask('What is the answer?', { persona: null, scope: null, tools: null }))),
    );
    expect(nullEvents.map((event) => event.type)).toEqual(leftEvents.map((event) => event.type));
    expect(nulls.model.requests).toEqual(left.model.requests);
    expect(nulls.model.requests[0]).not.toHaveProperty('tools');
  });

  it('refuses a body over 6 MB with 413', async () => {
    const { app } = chatApp();
    const response = await post(app, ask('x'.repeat(6 * 1024 * 1024 + 10)));
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ message: expect.any(String) });
  });

  it("continues the owner's chat, starts one for chatId null, refuses another user's (403) and an unknown one (400)", async () => {
    const { app, model } = chatApp({ hits: [] });
    const first = jsonEvents(await readSse(await post(app, ask('First question'))));
    const { chatId } = metadataOf(first);
    const second = jsonEvents(await readSse(await post(app, ask('Second question', { chatId }))));
    expect(second.at(-1)?.content).toMatchObject({ chatId, title: 'First question' });
    expect(model.requests[1]?.messages.map((message) => message.content).slice(1)).toEqual([
      'First question',
      'The answer is 42.',
      'Second question',
    ]);
    const stranger = await post(app, ask('Let me in', { chatId }), 'mallory');
    expect(stranger.status).toBe(403);
    expect(await stranger.json()).toEqual({ message: expect.any(String) });
    // null, as clients keep "no chat yet", starts a new chat as leaving chatId out does.
    const fresh = jsonEvents(await readSse(await post(app, ask('Third question', { chatId: null }))));
    expect(metadataOf(fresh)).toMatchObject({ title: 'Third question' });
    expect(metadataOf(fresh).chatId).not.toBe(chatId);
    const unknown = await post(app, ask('Hello', { chatId: 'no-such-chat' }));
    expect(unknown.status).toBe(400);
    expect(await unknown.json()).toEqual({ message: expect.stringContaining('chatId') });
  });

  it('is registered in the OpenAPI document', () => {
    const { app } = chatApp();
    const doc = app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 't', version: '1' } });
    expect(Object.keys(doc.paths ?? {})).toEqual(
      expect.arrayContaining(['/api/v1/chat/generate/stream', '/api/v1/chat/replay/{replaySessionID}']),
    );
  });
});

describe('GET /api/v1/chat/replay/{replaySessionID}', () => {
  it('streams the same events again to the owner only; 403 for another user, 404 for an unknown id', async () => {
    const { app } = chatApp();
    const original = await readSse(await post(app, ask('Replay me')));
    const { replaySessionID } = metadataOf(jsonEvents(original));
    const get = async (id: string, user: string) =>
      app.request(`/api/v1/chat/replay/${id}`, { headers: { authorization: `Bearer ${await tokenFor(user)}` } });
    const replay = await get(replaySessionID, 'alice');
    expect(replay.status).toBe(200);
    expect(replay.headers.get('content-type')).toBe('text/event-stream');
    expect((await readSse(replay)).data).toEqual(original.data);
    const stranger = await get(replaySessionID, 'mallory');
    expect(stranger.status).toBe(403);
    expect(await stranger.json()).toEqual({ message: expect.any(String) });
    expect((await get('no-such-replay', 'alice')).status).toBe(404);
  });
});
