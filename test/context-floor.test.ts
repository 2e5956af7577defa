import { createServices } from '@memgate/adapters';
import type { Principal } from '@memgate/core';
import { createChatApp, createProxyApp, createTokenVerifier, silentLogger } from '@memgate/http';
import { afterAll, describe, expect, it } from 'vitest';
import { HELP_DESK_DOCS, HELP_DESK_QUESTIONS } from './fixtures/help-desk.ts';
import { createLocalInputs } from './support/local-inputs.ts';
import { jsonEvents, readSse } from './support/sse.ts';
import { TEST_SECRET, tokenFor } from './support/tokens.ts';

// The context floor (PROXY_CONTEXT_MIN_SIMILARITY, its default) on the real local pieces: what the proxy injects
// and the chat cites for a small help-desk corpus uploaded in one add, as a user would. The hybrid score fell under
// the floor here once: a term of one document counted as held by every document within the neighbour window, so in
// a small corpus every term looked common and a relevant record scored 0.095 against the floor's 0.12.
const local = await createLocalInputs('floor');
const services = createServices(local.inputs);
const verifier = createTokenVerifier({ kind: 'hs256', secret: TEST_SECRET });
const proxy = createProxyApp({ ...services.proxy, verifier, logger: silentLogger });
const chat = createChatApp({ ...services.chat, verifier, logger: silentLogger });
afterAll(() => local.close());

const user: Principal = { userId: 'helpdesk', orgs: [], scopes: new Set(['context:write']) };
await services.context.store.add(user, {
  documents: Object.entries(HELP_DESK_DOCS).map(([fileName, content]) => ({ fileName, content })),
});

async function askProxy(question: string) {
  const response = await proxy.request('/api/v1/proxy/default/chat/completions', {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await tokenFor('helpdesk')}`,
      'content-type': 'application/json',
      'x-memgate-store': 'off',
    },
    body: JSON.stringify({ model: 'memgate/default', messages: [{ role: 'user', content: question }] }),
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { choices: { message: { content: string } }[] };
  return { injected: Number(response.headers.get('x-memgate-context-injected')), answer: body.choices[0]?.message };
}

async function chatSources(question: string): Promise<string[]> {
  const response = await chat.request('/api/v1/chat/generate/stream', {
    method: 'POST',
    headers: { authorization: `Bearer ${await tokenFor('helpdesk')}`, 'content-type': 'application/json' },
    body: JSON.stringify({ chat_history: [{ role: 'user', content: question }] }),
  });
  const final = jsonEvents(await readSse(response)).find((event) => event.type === 'final_response') as {
    json: { sources: { fileName: string }[] };
  };
  return final.json.sources.map((source) => source.fileName);
}

describe('the default context floor on a small corpus added in one request', () => {
  it.each([
    ['How do I enable two-factor authentication?', 'security', 'turning on two-factor authentication'],
    ['How much does express delivery cost?', 'shipping', '9.95 euros'],
    ['How long do I have to return a product?', 'refunds', '30 days'],
  ])('injects and cites the record that answers "%s"', async (question, fileName, answerText) => {
    const { injected, answer } = await askProxy(question);
    expect(injected).toBeGreaterThan(0);
    // The extractive responder answers from the injected context only.
    expect(answer?.content).toContain(answerText);
    expect(await chatSources(question)).toContain(fileName);
  });

  it.each(
    HELP_DESK_QUESTIONS.filter(({ answer, paraphrase }) => answer !== '-' && !paraphrase).map(
      ({ question, answer }) => [question, answer],
    ),
  )('cites first the record that answers "%s"', async (question, answer) => {
    expect((await chatSources(question))[0]).toBe(answer);
  });

  it.each(HELP_DESK_QUESTIONS.filter(({ answer }) => answer === '-').map(({ question }) => question))(
    'injects and cites nothing for "%s"',
    async (question) => {
      expect((await askProxy(question)).injected).toBe(0);
      expect(await chatSources(question)).toEqual([]);
    },
  );
});
