import OpenAI from 'openai';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { tokenFor } from '../support/tokens.ts';
import { startUpstreamStub } from '../support/upstream-stub.ts';
import { createFakeContextStore, startProxy } from './harness.ts';

const stub = await startUpstreamStub();
const fake = createFakeContextStore([
  {
    fileName: 'billing.md',
    text: 'Invoices are sent on the first day of each month. Refunds take five business days.',
  },
]);
const proxy = await startProxy({ contextStore: fake.store });
const token = await tokenFor('alice', { scope: 'proxy' });
afterAll(async () => {
  await proxy.close();
  await stub.close();
});
beforeEach(async () => {
  // What an earlier test captured is stored now, not into this test's records.
  await proxy.background.idle();
  stub.setBehavior({});
  stub.requests.length = 0;
  fake.added.length = 0;
});

const routeA = (base = stub.url, key = 'sk-target-secret-123') => `${proxy.url}/api/v1/proxy/${base}/${key}`;
const client = (baseURL: string) => new OpenAI({ baseURL, apiKey: token, maxRetries: 0 });

describe('route A with the official SDK', () => {
  it('forwards a completion with the target key and returns the upstream JSON', async () => {
    stub.setBehavior({ reply: 'forty-two' });
    const completion = await client(routeA()).chat.completions.create({
      model: 'gpt-x',
      messages: [{ role: 'user', content: 'When are invoices sent?' }],
      temperature: 0.5,
      seed: 7,
      tools: [{ type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } }],
    });
    expect(completion.choices[0]?.message.content).toBe('forty-two');
    const seen = stub.requests[0];
    expect(seen?.path).toBe('/v1/chat/completions');
    expect(seen?.headers.authorization).toBe('Bearer sk-target-secret-123');
    expect(seen?.body).toMatchObject({ model: 'gpt-x', temperature: 0.5, seed: 7, tools: [{ type: 'function' }] });
    // The caller's service token is never sent to the target.
    expect(JSON.stringify(seen?.headers)).not.toContain(token);
  });

  it('forwards the turn after a legacy function call (functions, function_call, a function message)', async () => {
    // Deprecated by OpenAI in favour of tools but still served: apps written for it send this second turn.
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'When are invoices sent?' },
      { role: 'assistant', content: null, function_call: { name: 'lookup', arguments: '{"q":"invoices"}' } },
      { role: 'function', name: 'lookup', content: 'the first day of each month' },
    ];
    const functions = [{ name: 'lookup', parameters: { type: 'object' } }];
    const completion = await client(routeA()).chat.completions.create({ model: 'gpt-x', messages, functions });
    expect(completion.choices[0]?.message.role).toBe('assistant');
    expect(stub.requests[0]?.body).toMatchObject({ messages: expect.arrayContaining(messages), functions });
  });

  it('streams the upstream chunks unchanged, ending with [DONE]', async () => {
    stub.setBehavior({ chunks: ['Hel', 'lo ', 'world'] });
    const stream = await client(routeA()).chat.completions.create({
      model: 'gpt-x',
      stream: true,
      messages: [{ role: 'user', content: 'hi' }],
    });
    const parts: string[] = [];
    for await (const chunk of stream) parts.push(chunk.choices[0]?.delta.content ?? '');
    expect(parts.join('')).toBe('Hello world');
  });

  it('accepts a collapsed https:/ and a percent-encoded base URL', async () => {
    const collapsed = stub.url.replace('http://', 'http:/');
    const encoded = encodeURIComponent(stub.url);
    for (const base of [collapsed, encoded]) {
      const res = await fetch(`${routeA(base)}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
      });
      expect(res.status).toBe(200);
    }
    expect(stub.requests.map((request) => request.path)).toEqual(['/v1/chat/completions', '/v1/chat/completions']);
  });

  it('injects stored context and stores the exchange as a conversation record', async () => {
    const res = await client(routeA())
      .chat.completions.create({
        model: 'gpt-x',
        messages: [
          { role: 'system', content: 'You are terse.' },
          { role: 'user', content: 'How long do refunds take?' },
        ],
      })
      .withResponse();
    expect(res.response.headers.get('x-memgate-context-injected')).toBe('1');
    const sent = stub.requests[0]?.body as { messages: { role: string; content: string }[] };
    expect(sent.messages.map((message) => message.role)).toEqual(['system', 'system', 'user']);
    expect(sent.messages[1]?.content).toContain('Refunds take five business days.');
    await proxy.background.idle();
    expect(fake.added).toHaveLength(1);
    expect(fake.added[0]?.input).toMatchObject({ context_type: 'conversation', scope: 'internal' });
    expect(fake.added[0]?.input.documents[0]?.content).toContain('How long do refunds take?');
    expect(JSON.stringify(fake.added)).not.toContain('sk-target-secret-123');
  });
});

describe('route B with the official SDK (extractive responder)', () => {
  const routeB = () => client(`${proxy.url}/api/v1/proxy/default`);

  it('answers from stored context with real token counts', async () => {
    const completion = await routeB().chat.completions.create({
      model: 'memgate/default',
      messages: [{ role: 'user', content: 'How long do refunds take?' }],
    });
    expect(completion.model).toBe('memgate/extractive');
    expect(completion.choices[0]?.message.content).toBe('Refunds take five business days.');
    expect(completion.usage?.completion_tokens).toBeGreaterThan(3);
    expect(completion.usage?.total_tokens).toBe(
      (completion.usage?.prompt_tokens ?? 0) + (completion.usage?.completion_tokens ?? 0),
    );
  });

  it('streams chat.completion.chunk events with usage when asked', async () => {
    const stream = await routeB().chat.completions.create({
      model: 'memgate/default',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'When are invoices sent?' }],
    });
    let text = '';
    let finish: string | null | undefined;
    let usage: unknown;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish ??= chunk.choices[0]?.finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('Invoices are sent on the first day of each month.');
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ completion_tokens: expect.any(Number) });
  });

  it('says plainly when nothing relevant is stored', async () => {
    const completion = await routeB().chat.completions.create({
      model: 'memgate/default',
      messages: [{ role: 'user', content: 'What colour is our office cat?' }],
    });
    expect(completion.choices[0]?.message.content).toMatch(/nothing relevant/i);
  });

  it('refuses another model with 400 invalid_request', async () => {
    const error = await routeB()
      .chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({
      type: 'invalid_request_error',
      code: 'invalid_request',
    });
  });
});

describe('route B with DEFAULT_MODEL_BASE_URL set', () => {
  it('forwards to the configured upstream with its key and upstream model id', async () => {
    const configured = await startProxy({
      contextStore: fake.store,
      env: {
        DEFAULT_MODEL_BASE_URL: stub.url,
        DEFAULT_MODEL_API_KEY: 'sk-operator-key',
        DEFAULT_MODEL_UPSTREAM_ID: 'llama-3-8b',
      },
    });
    try {
      stub.setBehavior({ reply: 'from the operator model' });
      const stream = await client(`${configured.url}/api/v1/proxy/default`).chat.completions.create({
        model: 'memgate/default',
        stream: true,
        messages: [{ role: 'user', content: 'hello' }],
      });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      expect(text).toBe('from the operator model');
      expect(stub.requests[0]?.body).toMatchObject({ model: 'llama-3-8b', stream: true });
      expect(stub.requests[0]?.headers.authorization).toBe('Bearer sk-operator-key');
    } finally {
      await configured.close();
    }
  });
});
