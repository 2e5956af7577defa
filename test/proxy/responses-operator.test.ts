import { createJsonLogger } from '@memgate/http';
import OpenAI from 'openai';
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { namedEvents as eventsOf } from '../support/sse.ts';
import { tokenFor } from '../support/tokens.ts';
import { startUpstreamStub } from '../support/upstream-stub.ts';
import { createFakeContextStore, startProxy } from './harness.ts';

// The Responses API's route B over an operator upstream (DESIGN.md section 4): Responses translated to chat
// completions and back, tool calls both ways, and the upstream's failures. responses.test.ts has both routes' basics.
const stub = await startUpstreamStub();
const fake = createFakeContextStore([
  {
    fileName: 'billing.md',
    text: 'Invoices are sent on the first day of each month. Refunds take five business days.',
  },
]);
const operatorLog: string[] = [];
const operator = await startProxy({
  contextStore: fake.store,
  logger: createJsonLogger({ level: 'info', sink: (line) => operatorLog.push(line) }),
  env: {
    DEFAULT_MODEL_BASE_URL: stub.url,
    DEFAULT_MODEL_API_KEY: 'sk-operator-key',
    DEFAULT_MODEL_UPSTREAM_ID: 'llama',
  },
});
const token = await tokenFor('alice', { scope: 'proxy' });
afterAll(async () => {
  await operator.close();
  await stub.close();
});
beforeEach(async () => {
  // What an earlier test captured is stored now, not into this test's records.
  await operator.background.idle();
  stub.setBehavior({});
  stub.requests.length = 0;
  fake.added.length = 0;
});

const client = (baseURL: string) => new OpenAI({ baseURL, apiKey: token, maxRetries: 0 });
const post = (url: string, body: unknown) =>
  fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });

describe('route B over the operator upstream: tool calls both ways', () => {
  const routeB = () => client(`${operator.url}/api/v1/proxy/default`);
  const tools = [
    {
      type: 'function' as const,
      name: 'get_weather',
      description: 'Weather of a city',
      parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      strict: false,
    },
  ];

  it('translates tools, tool_choice, max_output_tokens and function_call_output into chat for the upstream', async () => {
    await routeB().responses.create({
      model: 'memgate/default',
      instructions: 'Use tools.',
      max_output_tokens: 50,
      tool_choice: { type: 'function', name: 'get_weather' },
      tools,
      input: [
        { role: 'user', content: 'Weather in Paris?' },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: '{"temp":21}' },
      ],
    });
    expect(stub.requests[0]?.path).toBe('/v1/chat/completions');
    expect(stub.requests[0]?.body).toMatchObject({
      model: 'llama',
      max_completion_tokens: 50,
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: tools[0]?.parameters } }],
      messages: [
        { role: 'system', content: 'Use tools.' },
        { role: 'user', content: 'Weather in Paris?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
          ],
        },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp":21}' },
      ],
    });
  });

  it('returns a tool call as a function_call item, and streams its arguments delta by delta', async () => {
    const toolCall = { id: 'call_9', name: 'get_weather', arguments: ['{"ci', 'ty":"Pa', 'ris"}'] };
    stub.setBehavior({ toolCall });
    const response = await routeB().responses.create({ model: 'memgate/default', input: 'Weather in Paris?', tools });
    expect(response.output).toMatchObject([
      {
        type: 'function_call',
        call_id: 'call_9',
        name: 'get_weather',
        arguments: '{"city":"Paris"}',
        status: 'completed',
      },
    ]);
    expect(response.usage?.total_tokens).toBe(15);

    const stream = await routeB().responses.create({
      model: 'memgate/default',
      input: 'Weather?',
      tools,
      stream: true,
    });
    const deltas: string[] = [];
    let done: unknown;
    let usage: unknown;
    for await (const event of stream) {
      if (event.type === 'response.function_call_arguments.delta') deltas.push(event.delta);
      if (event.type === 'response.output_item.done') done = event.item;
      if (event.type === 'response.completed') usage = event.response.usage;
    }
    expect(deltas).toEqual(toolCall.arguments);
    expect(done).toMatchObject({
      type: 'function_call',
      call_id: 'call_9',
      name: 'get_weather',
      arguments: '{"city":"Paris"}',
    });
    expect(usage).toMatchObject({ input_tokens: 10, output_tokens: expect.any(Number) });
    expect(stub.requests[1]?.body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
  });

  it('ends a stream whose upstream fails midway with an error event, and stores no half exchange', async () => {
    stub.setBehavior({ chunks: ['Paris ', 'is ', 'sunny'], failAfterChunks: 1 });
    const res = await post(`${operator.url}/api/v1/proxy/default/responses`, {
      model: 'memgate/default',
      input: 'Weather in Paris?',
      stream: true,
    });
    const events = eventsOf(await res.text());
    expect(events.map((event) => event.event)).toContain('response.output_text.delta');
    expect(events.at(-1)?.data).toMatchObject({ type: 'error', code: 'upstream_stream_failed' });
    expect(events.map((event) => event.event)).not.toContain('response.completed');
    await operator.background.idle();
    expect(fake.added).toHaveLength(0);
  });

  it('ends a stream whose upstream answered without events with an error event, not an empty completed response', async () => {
    for (const garbage of ['', '<html>Bad gateway</html>', 'data: [DONE]\n\n']) {
      stub.setBehavior({ garbage });
      const res = await post(`${operator.url}/api/v1/proxy/default/responses`, {
        model: 'memgate/default',
        input: 'Weather in Paris?',
        stream: true,
      });
      const events = eventsOf(await res.text());
      expect(events.map((event) => event.event)).not.toContain('response.completed');
      expect(events.at(-1)?.data).toMatchObject({ type: 'error', code: 'upstream_invalid_response' });
    }
    await operator.background.idle();
    expect(fake.added).toHaveLength(0);
  });

  it('ends a stream whose upstream closed before [DONE] or a finish_reason with an error event, not completed', async () => {
    const chunk = (content: string) =>
      `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
    const ask = async (body: string) => {
      stub.setBehavior({ garbage: body });
      const res = await post(`${operator.url}/api/v1/proxy/default/responses`, {
        model: 'memgate/default',
        input: 'Weather in Paris?',
        stream: true,
      });
      return eventsOf(await res.text());
    };
    const cut = await ask(chunk('Paris ') + chunk('is '));
    expect(cut.map((event) => event.event)).toContain('response.output_text.delta');
    expect(cut.map((event) => event.event)).not.toContain('response.completed');
    expect(cut.at(-1)?.data).toMatchObject({ type: 'error', code: 'upstream_stream_failed' });
    await operator.background.idle();
    expect(fake.added).toHaveLength(0);
    // An upstream that ends with [DONE] but never names a finish_reason answered in full.
    const whole = await ask(`${chunk('Paris ')}${chunk('is sunny.')}data: [DONE]\n\n`);
    expect(whole.at(-1)?.data).toMatchObject({ type: 'response.completed' });
  });

  it('logs a client that leaves mid-stream as such, not as a failed stream', async () => {
    stub.setBehavior({ chunks: Array.from({ length: 50 }, (_, at) => `w${at} `), chunkDelayMs: 100 });
    const client = new AbortController();
    const gone = stub.nextDisconnect();
    const first = operatorLog.length;
    const res = await fetch(`${operator.url}/api/v1/proxy/default/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'memgate/default', input: 'Count slowly', stream: true }),
      signal: client.signal,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let seen = '';
    while (!seen.includes('response.output_text.delta')) seen += new TextDecoder().decode((await reader.read()).value);
    client.abort();
    await gone; // the upstream call is aborted with it
    const logged = () => operatorLog.slice(first).join('\n');
    await vi.waitFor(() => expect(logged()).toContain('its upstream call was aborted'));
    expect(logged()).not.toContain('"level":"error"');
  });

  it('answers an upstream 429 with its status, a message of its own and only the retry hints', async () => {
    const secret = { error: { message: 'org-operator over quota', type: 'requests', code: 'rate_limit_exceeded' } };
    stub.setBehavior({
      error: {
        status: 429,
        body: secret,
        headers: { 'retry-after': '7', 'x-request-id': 'req_op', 'x-ratelimit-limit-requests': '5' },
      },
    });
    const res = await post(`${operator.url}/api/v1/proxy/default/responses`, { model: 'memgate/default', input: 'hi' });
    expect(res.status).toBe(429);
    const body = (await res.json()) as { error: { type: string; code: string; message: string } };
    expect(body.error).toMatchObject({ type: 'requests', code: 'rate_limit_exceeded' });
    expect(body.error.message).not.toContain('org-operator');
    expect(res.headers.get('retry-after')).toBe('7');
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/); // ours, not the operator's req_op
    expect(res.headers.get('x-ratelimit-limit-requests')).toBeNull();
  });
});
