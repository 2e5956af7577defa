import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { tokenFor } from '../support/tokens.ts';
import { startUpstreamStub } from '../support/upstream-stub.ts';
import { createFakeContextStore, startProxy } from './harness.ts';

// What the upstream receives (forward.ts, the upstream adapter): route A forwards the caller's JSON as written when
// nothing the proxy does changes the request, and the request it built in every case that changes it.
const stub = await startUpstreamStub();
const fake = createFakeContextStore([{ fileName: 'garden.md', text: 'Tomatoes need six hours of sun every day.' }]);
const proxy = await startProxy({ contextStore: fake.store });
const operator = await startProxy({ contextStore: fake.store, env: { DEFAULT_MODEL_BASE_URL: stub.url } });
const renaming = await startProxy({
  contextStore: fake.store,
  env: { DEFAULT_MODEL_BASE_URL: stub.url, DEFAULT_MODEL_UPSTREAM_ID: 'llama-3-8b' },
});
const token = await tokenFor('erin', { scope: 'proxy' });
afterAll(async () => {
  await Promise.all([proxy.close(), operator.close(), renaming.close()]);
  await stub.close();
});
beforeEach(async () => {
  await Promise.all([proxy.background.idle(), operator.background.idle(), renaming.background.idle()]);
  stub.setBehavior({});
  stub.requests.length = 0;
});

const PASSTHROUGH = { 'x-memgate-filter': 'off', 'x-memgate-context': 'off', 'x-memgate-store': 'off' };
const routeA = (endpoint: string) => `${proxy.url}/api/v1/proxy/${stub.url}/sk-caller-json/${endpoint}`;

async function send(url: string, body: string, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body,
  });
  expect(res.status, await res.clone().text()).toBe(200);
  await res.text();
  const received = stub.requests.at(-1);
  if (!received) throw new Error('the upstream received nothing');
  return received;
}

// Valid JSON that JSON.stringify would write otherwise: escapes (\u, \/, surrogate pairs), literal non-ASCII, key
// order with the model last, whitespace and newlines, numbers written as 1.0 and 2e2, an unknown field.
const UNUSUAL = `{
  "messages" : [
    {"content":"caf\\u00e9 \\ud83c\\udf45 and caf\u00e9 \u{1F345}, a\\/b \\"quoted\\"\\n","role":"user"} ],
\t"temperature": 1.0, "max_tokens": 2e2,
  "vendor_option": { "b": 1, "a": [ true, null ] },
  "model":"gpt-x"
}
`;

describe('route A forwards the caller’s JSON byte for byte when it changes nothing', () => {
  it('chat completions: unusual but valid JSON arrives exactly as sent, streamed or not', async () => {
    const received = await send(routeA('chat/completions'), UNUSUAL, PASSTHROUGH);
    expect(received.text).toBe(UNUSUAL);
    const streamed = UNUSUAL.replace('"model":"gpt-x"', '"stream" :true,"model":"gpt-x"');
    expect((await send(routeA('chat/completions'), streamed, PASSTHROUGH)).text).toBe(streamed);
  });

  it('chat completions with filtering and context on: as sent when nothing is dropped or injected', async () => {
    // One user message (nothing to filter) that shares no word with the stored passage (no context).
    const received = await send(routeA('chat/completions'), UNUSUAL, { 'x-memgate-store': 'off' });
    expect(received.text).toBe(UNUSUAL);
  });

  it('responses: unusual but valid JSON arrives exactly as sent', async () => {
    const body = `{ "input" : [ {"role":"user","content":"\\u00e9t\u00e9 \\ud83c\\udf45"} ],\n "top_p":1.0,"model":"gpt-x" }`;
    expect((await send(routeA('responses'), body, PASSTHROUGH)).text).toBe(body);
  });
});

const history = [
  { role: 'system', content: 'You are a gardening assistant.' },
  { role: 'user', content: 'What is the capital of Mongolia?' },
  { role: 'assistant', content: 'Ulaanbaatar is the capital of Mongolia.' },
  { role: 'user', content: 'Which stock exchange lists the biggest banks?' },
  { role: 'assistant', content: 'Several, mostly New York.' },
  { role: 'user', content: 'Recent one' },
  { role: 'assistant', content: 'Recent two' },
  { role: 'user', content: 'Recent three' },
  { role: 'assistant', content: 'Recent four' },
  { role: 'user', content: 'Do tomatoes in my garden need sun every day?' },
];
/** The request as a client might write it: spaced, the model last, a number as 1.0. */
const written = (request: Record<string, unknown>) => `${JSON.stringify(request, null, 2)}\n`;

describe('every change the proxy makes reaches the upstream', () => {
  it('filtering: the dropped messages are not sent, the rest of the request is', async () => {
    const text = written({ messages: history, temperature: 0.5, vendor_option: { a: 1 }, model: 'gpt-x' });
    const received = await send(routeA('chat/completions'), text, {
      'x-memgate-context': 'off',
      'x-memgate-store': 'off',
    });
    const sent = received.body as { messages: { content: string }[] };
    expect(sent.messages.map((message) => message.content)).not.toContain('What is the capital of Mongolia?');
    expect(sent.messages.length).toBeLessThan(history.length);
    expect(sent).toMatchObject({ temperature: 0.5, vendor_option: { a: 1 }, model: 'gpt-x' });
  });

  it('context: the injected system message is sent', async () => {
    const text = written({ messages: history, model: 'gpt-x' });
    const received = await send(routeA('chat/completions'), text, {
      'x-memgate-filter': 'off',
      'x-memgate-store': 'off',
    });
    const sent = received.body as { messages: { role: string; content: string }[] };
    expect(sent.messages).toHaveLength(history.length + 1);
    expect(sent.messages[1]?.content).toContain('Tomatoes need six hours of sun every day.');
  });

  it('responses with context: the injected item is sent', async () => {
    const text = written({ input: [{ role: 'user', content: 'Do tomatoes need sun?' }], model: 'gpt-x' });
    const received = await send(routeA('responses'), text, { 'x-memgate-store': 'off' });
    const sent = received.body as { input: { role: string; content: string }[] };
    expect(sent.input).toHaveLength(2);
    expect(sent.input[0]?.content).toContain('Tomatoes need six hours of sun every day.');
  });

  it('route B: the upstream model id replaces the caller’s', async () => {
    const text = written({ messages: [{ role: 'user', content: 'Hi' }], temperature: 1.0, model: 'memgate/default' });
    const received = await send(`${renaming.url}/api/v1/proxy/default/chat/completions`, text, PASSTHROUGH);
    expect(received.body).toEqual({ messages: [{ role: 'user', content: 'Hi' }], temperature: 1, model: 'llama-3-8b' });
  });

  it('route B: the request it checked, never a duplicated key the operator’s upstream might read first', async () => {
    const text =
      '{"model":"operator-private-model","messages":[{"role":"user","content":"Hi"}],"model":"memgate/default"}';
    const received = await send(`${operator.url}/api/v1/proxy/default/chat/completions`, text, PASSTHROUGH);
    expect(received.text).not.toContain('operator-private-model');
    expect(received.body).toEqual({ model: 'memgate/default', messages: [{ role: 'user', content: 'Hi' }] });
  });
});

// OpenAI's chat-completion parameters are nullable: openai-python sends `temperature=None` as null, and clients
// that keep unset settings as null (LangChain, LiteLLM) do too. OpenAI reads null as left out.
describe('optional parameters sent as null', () => {
  const nulls = { max_tokens: null, temperature: null, top_p: null, frequency_penalty: null, presence_penalty: null };
  const request = { ...nulls, stream: null, n: null, tools: null, model: 'memgate/default' };
  const messages = [{ role: 'user', content: 'Do tomatoes need sun?' }];

  it('route A forwards them as written', async () => {
    const text = JSON.stringify({ ...request, messages, model: 'gpt-x' });
    expect((await send(routeA('chat/completions'), text, PASSTHROUGH)).text).toBe(text);
  });

  it('route B answers on the operator’s upstream and on the extractive responder, unstreamed', async () => {
    const text = JSON.stringify({ ...request, messages });
    const received = await send(`${operator.url}/api/v1/proxy/default/chat/completions`, text, PASSTHROUGH);
    expect(received.body).toMatchObject({ messages, model: 'memgate/default' });
    const res = await fetch(`${proxy.url}/api/v1/proxy/default/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-memgate-store': 'off' },
      body: text,
    });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { object: string; choices: { message: { content: string } }[] };
    expect(answer.object).toBe('chat.completion');
    expect(answer.choices[0]?.message.content).toContain('Tomatoes need six hours of sun every day.');
  });
});
