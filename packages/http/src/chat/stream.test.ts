import { describe, expect, it } from 'vitest';
import { abortOf, fakeChat, scriptedModel } from '../../../../test/support/chat-fakes.ts';
import { jsonEvents, metadataOf, readSse, sseReader } from '../../../../test/support/sse.ts';
import { TEST_SECRET, tokenFor } from '../../../../test/support/tokens.ts';
import { createTokenVerifier } from '../auth/index.ts';
import { createJsonLogger } from '../observability/index.ts';
import { createChatApp } from './index.ts';

const verifier = createTokenVerifier({ kind: 'hs256', secret: TEST_SECRET });

function chatApp(model: ReturnType<typeof scriptedModel>, keepAliveMs = 15_000) {
  const chat = fakeChat({ hits: [], model });
  const logged: string[] = [];
  const logger = createJsonLogger({ level: 'error', sink: (line: string) => logged.push(line) });
  const app = createChatApp({ verifier, logger, service: chat.service, keepAliveMs });
  return { app, logged, ...chat };
}

async function post(app: ReturnType<typeof chatApp>['app'], content: string, chatId?: string) {
  return app.request('/api/v1/chat/generate/stream', {
    method: 'POST',
    headers: { authorization: `Bearer ${await tokenFor('alice')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ chat_history: [{ role: 'user', content }], chatId }),
  });
}

describe('chat stream failures', () => {
  it('ends a model failure with metadata, an error event and [DONE], leaking nothing; the chat goes on', async () => {
    let failures = 1;
    const model = scriptedModel(['Partial'], {
      afterwards: async () => {
        if (failures-- > 0) throw new Error('connect ECONNRESET 10.0.0.7 with key sk-secret-123456789');
      },
    });
    const { app, logged } = chatApp(model);
    const response = await post(app, 'Will this fail?');
    expect(response.status).toBe(200);
    const read = await readSse(response);
    const events = jsonEvents(read);
    expect(events.map((event) => event.type ?? 'error')).toEqual([
      'thinking_update',
      'thinking_update',
      'thinking_update',
      'metadata',
      'error',
    ]);
    expect(events.at(-1)).toEqual({ content: null, error: { message: 'the answer could not be completed' } });
    // A new chat's id arrives only in metadata: the client retries in the chat that holds the question.
    const { chatId, replaySessionID } = metadataOf(events.slice(0, -1));
    const replay = await app.request(`/api/v1/chat/replay/${replaySessionID}`, {
      headers: { authorization: `Bearer ${await tokenFor('alice')}` },
    });
    expect((await readSse(replay)).data).toEqual(read.data);
    const retried = jsonEvents(await readSse(await post(app, 'Will this fail?', chatId)));
    expect(retried.at(-1)?.content).toMatchObject({ chatId, title: 'Will this fail?' });
    expect(model.requests[1]?.messages.filter((message) => message.role === 'user')).toEqual([
      { role: 'user', content: 'Will this fail?' },
    ]);
    expect(read.data.join('\n')).not.toMatch(/sk-secret|ECONNRESET|at .*\.ts/);
    // The operator still learns what happened, with the key redacted.
    expect(logged.join('\n')).toContain('ECONNRESET');
    expect(logged.join('\n')).not.toContain('sk-secret');
  });

  it('aborts the model call when the client disconnects, and keeps the question in the session', async () => {
    const model = scriptedModel([], { afterwards: (signal) => abortOf(signal) });
    const { app, sessions } = chatApp(model);
    const response = await post(app, 'Are you still there?');
    const reader = sseReader(response);
    for (let step = 0; step < 3; step += 1) expect((await reader.next())?.kind).toBe('data');
    await reader.cancel();
    const signal = model.signals[0];
    if (!signal) throw new Error('the model was never called');
    await abortOf(signal);
    expect(signal.aborted).toBe(true);
    await expect
      .poll(() => [...sessions.sessions.values()][0]?.messages.map((m) => m.content))
      .toEqual(['Are you still there?']);
  });

  it('sends keep-alive comments while the model is silent, then the answer', async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const model = scriptedModel([], {
      afterwards: () => released,
    });
    const { app } = chatApp(model, 5);
    const reader = sseReader(await post(app, 'Take your time'));
    let keepAlive: { kind: string; value: string } | undefined;
    while (!keepAlive) {
      const next = await reader.next();
      if (next?.kind === 'comment') keepAlive = next;
    }
    expect(keepAlive.value).toBe('keep-alive');
    release();
    const rest: string[] = [];
    for (let next = await reader.next(); next; next = await reader.next()) {
      if (next.kind === 'data') rest.push(next.value);
    }
    expect(rest.at(-1)).toBe('[DONE]');
    expect(rest.map((data) => (data === '[DONE]' ? data : JSON.parse(data).type))).toContain('final_response');
  });
});
