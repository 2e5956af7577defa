import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { tokenFor } from '../support/tokens.ts';
import { startUpstreamStub } from '../support/upstream-stub.ts';
import { createFakeContextStore, startProxy } from './harness.ts';

const stub = await startUpstreamStub();
const fake = createFakeContextStore([{ fileName: 'garden.md', text: 'Tomatoes need six hours of sun every day.' }]);
let memoryWork = 0;
const proxy = await startProxy({ contextStore: fake.store, beforeMemoryWork: () => memoryWork++ });
const token = await tokenFor('dana', { scope: 'proxy' });
afterAll(async () => {
  await proxy.close();
  await stub.close();
});
beforeEach(() => {
  stub.requests.length = 0;
  fake.added.length = 0;
  fake.searches.length = 0;
  memoryWork = 0;
});

const history = [
  { role: 'system', content: 'You are a gardening assistant.' },
  { role: 'user', content: 'What is the capital of Mongolia?' },
  { role: 'assistant', content: 'Ulaanbaatar is the capital of Mongolia.' },
  { role: 'user', content: 'How much sun do tomatoes need in a garden?' },
  { role: 'assistant', content: 'Tomatoes like plenty of sun in the garden.' },
  { role: 'user', content: 'Which stock exchange lists the biggest banks?' },
  { role: 'assistant', content: 'Several, mostly New York.' },
  { role: 'user', content: 'Recent one' },
  { role: 'assistant', content: 'Recent two' },
  { role: 'user', content: 'Do tomatoes in my garden need sun every day?' },
];

async function send(headers: Record<string, string> = {}) {
  const res = await fetch(`${proxy.url}/api/v1/proxy/${stub.url}/sk-switch-key/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ model: 'm', messages: history }),
  });
  await res.text();
  await proxy.background.idle();
  const last = stub.requests.at(-1) as { body: { messages: { role: string; content: string }[] } };
  const sent = last.body.messages;
  return { headers: res.headers, sent };
}

describe('history filtering, context injection and the per-request switches', () => {
  it('drops unrelated older messages, keeps order, reports it in headers', async () => {
    const { headers, sent } = await send({ 'x-memgate-context': 'off', 'x-memgate-store': 'off' });
    const contents = sent.map((message) => message.content);
    expect(contents).not.toContain('What is the capital of Mongolia?');
    expect(contents).toContain('How much sun do tomatoes need in a garden?');
    expect(contents.slice(-3)).toEqual(['Recent one', 'Recent two', 'Do tomatoes in my garden need sun every day?']);
    const dropped = Number(headers.get('x-memgate-history-dropped'));
    expect(dropped).toBeGreaterThan(0);
    expect(Number(headers.get('x-memgate-history-kept'))).toBe(history.length - dropped);
    expect(sent).toHaveLength(history.length - dropped);
    expect(Number(headers.get('x-memgate-tokens-saved'))).toBeGreaterThan(0);
    expect(headers.get('x-memgate-context-injected')).toBe('0');
    expect(fake.searches).toHaveLength(0);
    expect(fake.added).toHaveLength(0);
  });

  it('forwards the whole history with x-memgate-filter: off', async () => {
    const { headers, sent } = await send({ 'x-memgate-filter': 'off' });
    expect(sent.filter((message) => !message.content.startsWith('[memgate:context]'))).toEqual(history);
    expect(headers.get('x-memgate-history-dropped')).toBe('0');
    expect(headers.get('x-memgate-tokens-saved')).toBe('0');
  });

  it('injects context as one system message after the system messages and stores the exchange', async () => {
    const { headers, sent } = await send();
    expect(headers.get('x-memgate-context-injected')).toBe('1');
    expect(sent[1]?.role).toBe('system');
    expect(sent[1]?.content).toContain('Tomatoes need six hours of sun every day.');
    expect(sent.filter((message) => message.role === 'system')).toHaveLength(2);
    expect(fake.added).toHaveLength(1);
    expect(fake.added[0]?.principal.userId).toBe('dana');
  });

  // The local server collects its young generation there (young-when-idle.ts): a passthrough must not pay for it.
  it('calls beforeMemoryWork once before filtering or searching, never for a passthrough', async () => {
    await send({ 'x-memgate-filter': 'off', 'x-memgate-context': 'off', 'x-memgate-store': 'off' });
    await send({ 'x-memgate-filter': 'off', 'x-memgate-context': 'off' });
    expect(memoryWork).toBe(0);
    await send({ 'x-memgate-context': 'off', 'x-memgate-store': 'off' });
    expect(memoryWork).toBe(1);
    await send({ 'x-memgate-filter': 'off', 'x-memgate-store': 'off' });
    expect(memoryWork).toBe(2);
  });
});
