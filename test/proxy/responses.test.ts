import OpenAI from 'openai';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { namedEvents as eventsOf } from '../support/sse.ts';
import { tokenFor } from '../support/tokens.ts';
import { startUpstreamStub } from '../support/upstream-stub.ts';
import { createFakeContextStore, startProxy } from './harness.ts';

// The Responses API on both routes (DESIGN.md section 4), seen through raw HTTP and the official SDK.
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

const KEY = 'sk-target-secret-123';
const routeA = `${proxy.url}/api/v1/proxy/${stub.url}/${KEY}`;
const client = (baseURL: string) => new OpenAI({ baseURL, apiKey: token, maxRetries: 0 });
const post = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('route A: POST …/{proxyUrl}/{key}/responses', () => {
  it('forwards to the target /responses with context injected into input and stores the exchange', async () => {
    stub.setBehavior({ reply: 'Five business days.' });
    const response = await client(routeA).responses.create({
      model: 'gpt-x',
      instructions: 'Be brief.',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'How long do refunds take?' }] }],
      store: true,
    });
    expect(response.output_text).toBe('Five business days.');
    const seen = stub.requests[0];
    expect(seen?.path).toBe('/v1/responses');
    expect(seen?.headers.authorization).toBe(`Bearer ${KEY}`);
    const sent = seen?.body as { input: { role: string; content: unknown }[]; instructions: string; store: boolean };
    // Every other field reaches the target unchanged; the context is a system message before the question.
    expect(sent).toMatchObject({ model: 'gpt-x', instructions: 'Be brief.', store: true });
    expect(sent.input.map((item) => item.role)).toEqual(['system', 'user']);
    expect(sent.input[0]?.content).toContain('Refunds take five business days.');
    expect(sent.input[1]?.content).toEqual([{ type: 'input_text', text: 'How long do refunds take?' }]);
    await proxy.background.idle();
    expect(fake.added[0]?.input.documents[0]?.content).toBe(
      'User: How long do refunds take?\n\nAssistant: Five business days.',
    );
  });

  it('puts the context into instructions when the target keeps the conversation, so it does not pile up in it', async () => {
    stub.setBehavior({ reply: 'Five business days.' });
    for (const chained of [{ previous_response_id: 'resp_1' }, { conversation: 'conv_1' }]) {
      stub.requests.length = 0;
      const input = [{ role: 'user', content: 'How long do refunds take?' }];
      await post(`${routeA}/responses`, { model: 'gpt-x', instructions: 'Be brief.', input, ...chained });
      const sent = stub.requests[0]?.body as { input: unknown[]; instructions: string } | undefined;
      // The items the target adds to the conversation are the caller's own; instructions are not carried over.
      expect(sent?.input).toEqual(input);
      expect(sent?.instructions).toMatch(/^Be brief\.\n\n[\s\S]*Refunds take five business days\./);
    }
  });

  it("captures a question's text parts a line each, as chat completions does, and forwards the parts as sent", async () => {
    stub.setBehavior({ reply: 'On Friday.' });
    const content = [
      { type: 'input_text', text: 'Look at this:' },
      { type: 'input_image', image_url: 'https://example.com/invite.png', detail: 'auto' },
      { type: 'input_text', text: 'When is the party?' },
    ];
    const input = [{ role: 'user', content }];
    await post(`${routeA}/responses`, { model: 'gpt-x', input });
    const sent = stub.requests[0]?.body as { input: unknown[] } | undefined;
    expect(sent?.input.at(-1)).toEqual(input[0]);
    await proxy.background.idle();
    expect(fake.added[0]?.input.documents[0]?.content).toBe(
      'User: Look at this:\nWhen is the party?\n\nAssistant: On Friday.',
    );
  });

  it('sends the body unchanged when nothing is injected, and streams the target events byte for byte', async () => {
    stub.setBehavior({ chunks: ['Hel', 'lo'] });
    const body = { model: 'gpt-x', input: 'say hello', stream: true, previous_response_id: 'resp_1' };
    const res = await post(`${routeA}/responses`, body);
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    expect(stub.requests[0]?.body).toEqual(body);
    expect(eventsOf(text).map((event) => event.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    // The Responses API has no [DONE] sentinel; none is added.
    expect(text).not.toContain('[DONE]');
  });

  it('passes a target error status, body and rate-limit headers through', async () => {
    const error = { error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' } };
    stub.setBehavior({
      error: { status: 429, body: error, headers: { 'retry-after': '3', 'x-ratelimit-limit-requests': '60' } },
    });
    const res = await post(`${routeA}/responses`, { model: 'gpt-x', input: 'hi' });
    expect(res.status).toBe(429);
    expect(await res.json()).toEqual(error);
    expect(res.headers.get('retry-after')).toBe('3');
    expect(res.headers.get('x-ratelimit-limit-requests')).toBe('60');
  });
});

describe('route B: POST …/default/responses (extractive responder)', () => {
  const routeB = () => client(`${proxy.url}/api/v1/proxy/default`);

  it('answers from stored context with usage, and stores the exchange', async () => {
    const response = await routeB().responses.create({ model: 'memgate/default', input: 'How long do refunds take?' });
    expect(response.object).toBe('response');
    expect(response.status).toBe('completed');
    expect(response.output_text).toBe('Refunds take five business days.');
    expect(response.usage?.output_tokens).toBeGreaterThan(3);
    expect(response.usage?.total_tokens).toBe(
      (response.usage?.input_tokens ?? 0) + (response.usage?.output_tokens ?? 0),
    );
    await proxy.background.idle();
    expect(fake.added[0]?.input.documents[0]?.content).toContain('Assistant: Refunds take five business days.');
  });

  it('streams the official event sequence, ending with response.completed carrying usage', async () => {
    const res = await post(`${proxy.url}/api/v1/proxy/default/responses`, {
      model: 'memgate/default',
      input: [{ role: 'user', content: 'When are invoices sent?' }],
      stream: true,
    });
    const events = eventsOf(await res.text());
    expect(events.map((event) => event.event)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events.map((event) => event.data.sequence_number)).toEqual(events.map((_, index) => index));
    expect(events.every((event) => event.data.type === event.event)).toBe(true);
    const completed = events.at(-1)?.data.response as { output: unknown[]; usage: { output_tokens: number } };
    expect(completed.output).toMatchObject([
      {
        type: 'message',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Invoices are sent on the first day of each month.' }],
      },
    ]);
    expect(completed.usage.output_tokens).toBeGreaterThan(3);
  });

  it('marks the message cut by max_output_tokens incomplete, as the response, streamed or not', async () => {
    const request = { model: 'memgate/default', input: 'How long do refunds take?', max_output_tokens: 1 };
    const response = await routeB().responses.create(request);
    expect(response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } });
    expect(response.output).toMatchObject([{ type: 'message', status: 'incomplete' }]);
    const stream = await routeB().responses.create({ ...request, stream: true });
    const done: unknown[] = [];
    let last: OpenAI.Responses.Response | undefined;
    for await (const event of stream) {
      if (event.type === 'response.output_item.done') done.push(event.item);
      if (event.type === 'response.incomplete') last = event.response;
    }
    expect(done).toMatchObject([{ type: 'message', status: 'incomplete' }]);
    expect(last?.status).toBe('incomplete');
    expect(last?.output).toMatchObject([{ status: 'incomplete' }]);
  });

  it.each([
    [{ previous_response_id: 'resp_1' }, 'previous_response_id'],
    [{ input: [{ type: 'item_reference', id: 'msg_1' }] }, 'input[0].type'],
    [{ tools: [{ type: 'web_search' }] }, 'tools[0].type'],
    [{ text: { format: { type: 'json_schema', name: 'x', schema: {} } } }, 'text.format'],
    [{ model: 'gpt-4o' }, 'model'],
    [{ input: [] }, 'input'],
    [{ input: 42 }, 'input', 'input: must be a string or an array of input items'],
  ])('refuses %j with 400 naming param %s, before any answer', async (fields, param, message = param) => {
    const res = await post(`${proxy.url}/api/v1/proxy/default/responses`, {
      model: 'memgate/default',
      input: 'How long do refunds take?',
      ...fields,
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { type: string; param: string; message: string } };
    expect(body.error).toMatchObject({ type: 'invalid_request_error', param });
    expect(body.error.message).toContain(message);
    await proxy.background.idle();
    expect(fake.added).toHaveLength(0);
  });
});

describe('an upstream that sends its headers, then stalls', () => {
  it('is cut at PROXY_TOTAL_TIMEOUT_MS with 504 upstream_timeout: Responses on both routes, route A models', async () => {
    const limited = await startProxy({
      contextStore: fake.store,
      env: { DEFAULT_MODEL_BASE_URL: stub.url, PROXY_TOTAL_TIMEOUT_MS: '300' },
    });
    try {
      stub.setBehavior({ stallBody: true });
      const target = `${limited.url}/api/v1/proxy/${stub.url}/${KEY}`;
      const calls = [
        post(`${limited.url}/api/v1/proxy/default/responses`, { model: 'memgate/default', input: 'hi' }),
        post(`${target}/responses`, { model: 'gpt-x', input: 'hi' }),
        fetch(`${target}/models`, { headers: { authorization: `Bearer ${token}` } }),
      ];
      for (const res of await Promise.all(calls)) {
        expect(res.status).toBe(504);
        expect(await res.json()).toMatchObject({ error: { type: 'server_error', code: 'upstream_timeout' } });
      }
    } finally {
      await limited.close();
    }
  });
});
