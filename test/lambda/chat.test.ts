import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLES_HOOK_TIMEOUT_MS } from '../support/bundles.ts';
import { httpEvent, invokeStreaming, type StreamingHandler } from '../support/lambda.ts';
import { tokenFor } from '../support/tokens.ts';
import { type LambdaHarness, startLambdaHarness } from './harness.ts';

let harness: LambdaHarness;
let chat: StreamingHandler;
let token: string;

beforeAll(async () => {
  harness = await startLambdaHarness();
  chat = await harness.handlerOf<StreamingHandler>('chat-stream');
  token = await tokenFor('alice', { scope: 'chat context:read context:write' });
}, BUNDLES_HOOK_TIMEOUT_MS);

afterAll(() => harness?.close());

/** The `data:` payloads of an SSE body, in order (comment lines such as keep-alives left out). */
function dataEvents(body: string): string[] {
  return body
    .split('\n\n')
    .map((block) => block.split('\n').find((line) => line.startsWith('data: ')))
    .filter((line): line is string => line !== undefined)
    .map((line) => line.slice('data: '.length));
}

const request = (method: string, path: string, body?: unknown) =>
  httpEvent({ method, path, body, headers: { authorization: `Bearer ${token}` }, functionUrl: true });

describe('chat-stream Lambda (function URL, RESPONSE_STREAM)', () => {
  it('streams thinking updates, the answer, metadata and [DONE], and replays the same events', async () => {
    const response = await invokeStreaming(
      chat,
      request('POST', '/api/v1/chat/generate/stream', {
        chat_history: [{ role: 'user', content: 'What is memgate?' }],
      }),
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/event-stream');
    const events = dataEvents(response.body);
    expect(events.at(-1)).toBe('[DONE]');
    const parsed = events.slice(0, -1).map((event) => JSON.parse(event) as { type: string; content: unknown });
    const types = parsed.map((event) => event.type);
    expect(types[0]).toBe('thinking_update');
    expect(types.slice(-2)).toEqual(['final_response', 'metadata']);
    expect(types.filter((type) => type !== 'thinking_update')).toEqual(['final_response', 'metadata']);
    const metadata = parsed.at(-1)?.content as { chatId: string; title: string; replaySessionID: string };
    expect(metadata.chatId).toEqual(expect.any(String));
    expect(metadata.replaySessionID).toEqual(expect.any(String));

    const replay = await invokeStreaming(chat, request('GET', `/api/v1/chat/replay/${metadata.replaySessionID}`));
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['content-type']).toContain('text/event-stream');
    expect(dataEvents(replay.body)).toEqual(events);
  });

  it('refuses an invalid request before the stream starts', async () => {
    const response = await invokeStreaming(chat, request('POST', '/api/v1/chat/generate/stream', { chat_history: [] }));
    expect(response.statusCode).toBe(400);
    expect(JSON.parse(response.body)).toMatchObject({ message: expect.any(String) });
  });
});
