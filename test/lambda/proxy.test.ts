import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLES_HOOK_TIMEOUT_MS } from '../support/bundles.ts';
import { httpEvent, invokeStreaming, type StreamingHandler } from '../support/lambda.ts';
import { tokenFor } from '../support/tokens.ts';
import { startUpstreamStub, type UpstreamStub } from '../support/upstream-stub.ts';
import { type LambdaHarness, startLambdaHarness } from './harness.ts';

let harness: LambdaHarness;
let upstream: UpstreamStub;
let proxy: StreamingHandler;
let token: string;

beforeAll(async () => {
  upstream = await startUpstreamStub();
  // The stub listens on loopback; only this test opens private targets.
  harness = await startLambdaHarness({ PROXY_ALLOW_PRIVATE_TARGETS: 'true' });
  proxy = await harness.handlerOf<StreamingHandler>('proxy');
  token = await tokenFor('alice');
}, BUNDLES_HOOK_TIMEOUT_MS);

afterAll(async () => {
  await harness?.close();
  await upstream?.close();
});

const completions = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  httpEvent({
    method: 'POST',
    path,
    body,
    headers: { authorization: `Bearer ${token}`, ...headers },
    functionUrl: true,
  });

describe('proxy Lambda (function URL, RESPONSE_STREAM)', () => {
  it('streams an upstream completion through route A chunk by chunk, ending with [DONE]', async () => {
    upstream.setBehavior({ reply: 'one two three four', chunkDelayMs: 20 });
    const base = encodeURIComponent(upstream.url);
    const response = await invokeStreaming(
      proxy,
      completions(`/api/v1/proxy/${base}/sk-target-key-123456/chat/completions`, {
        model: 'gpt-test',
        stream: true,
        messages: [{ role: 'user', content: 'count to four' }],
      }),
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('text/event-stream');
    const events = response.body
      .split('\n\n')
      .filter((event) => event.startsWith('data: '))
      .map((event) => event.slice(6));
    expect(events.at(-1)).toBe('[DONE]');
    const text = events
      .slice(0, -1)
      .map((event) => JSON.parse(event).choices[0]?.delta?.content ?? '')
      .join('');
    expect(text).toBe('one two three four');
    expect(response.writes.length).toBeGreaterThan(1);
    expect(upstream.requests.at(-1)?.headers.authorization).toBe('Bearer sk-target-key-123456');
  });

  it('answers route B with the default model as JSON when not streaming', async () => {
    const response = await invokeStreaming(
      proxy,
      completions('/api/v1/proxy/default/chat/completions', {
        model: 'memgate/default',
        messages: [{ role: 'user', content: 'hello there' }],
      }),
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toContain('application/json');
    expect(JSON.parse(response.body)).toMatchObject({ object: 'chat.completion', model: 'memgate/extractive' });
  });

  it('counts tokens exactly with the encoder and table beside the bundle (max_tokens cuts the answer)', async () => {
    // The first exact count requires tokenizer-encoder.cjs and reads o200k_base.json.br (scripts/build-sidecars.ts SIDECARS).
    const response = await invokeStreaming(
      proxy,
      completions('/api/v1/proxy/default/chat/completions', {
        model: 'memgate/default',
        max_tokens: 3,
        messages: [{ role: 'user', content: 'What do you know about the launch date of the new product?' }],
      }),
    );
    expect(response.statusCode).toBe(200);
    const completion = JSON.parse(response.body);
    expect(completion.choices[0].finish_reason).toBe('length');
    expect(completion.usage.completion_tokens).toBeLessThanOrEqual(3);
    expect(completion.choices[0].message.content.length).toBeGreaterThan(0);
  });

  it('serves the Responses API as an event stream and lists models, on both routes', async () => {
    const streamed = await invokeStreaming(
      proxy,
      completions('/api/v1/proxy/default/responses', { model: 'memgate/default', input: 'hello', stream: true }),
    );
    expect(streamed.statusCode).toBe(200);
    const types = streamed.body
      .split('\n\n')
      .filter((event) => event.startsWith('event: '))
      .map((event) => event.split('\n')[0]?.slice(7));
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    const get = (path: string) =>
      httpEvent({ method: 'GET', path, headers: { authorization: `Bearer ${token}` }, functionUrl: true });
    const own = await invokeStreaming(proxy, get('/api/v1/proxy/default/models'));
    expect(JSON.parse(own.body)).toMatchObject({ object: 'list', data: [{ id: 'memgate/default' }] });
    upstream.setBehavior({ model: 'gpt-target' });
    const base = encodeURIComponent(upstream.url);
    const target = await invokeStreaming(proxy, get(`/api/v1/proxy/${base}/sk-target-key-123456/models`));
    expect(JSON.parse(target.body)).toMatchObject({ data: [{ id: 'gpt-target' }] });
  });

  it('refuses a missing token with the proxy error envelope', async () => {
    const event = completions('/api/v1/proxy/default/chat/completions', {
      model: 'memgate/default',
      messages: [{ role: 'user', content: 'hi' }],
    });
    delete event.headers.authorization;
    const response = await invokeStreaming(proxy, event);
    expect(response.statusCode).toBe(401);
    expect(JSON.parse(response.body)).toMatchObject({ error: { type: 'authentication_error' } });
  });
});
