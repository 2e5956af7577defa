import { serve } from '@hono/node-server';
import { createContextServices } from '@memgate/adapters/services/context';
import { createEmbedder } from '@memgate/adapters/services/embedder';
import { createProxyServices } from '@memgate/adapters/services/proxy';
import type { Principal } from '@memgate/core';
import { createBackgroundWork, createProxyApp, createTokenVerifier, silentLogger } from '@memgate/http';
import { afterAll, describe, expect, it } from 'vitest';
import { startChat } from '../chat/harness.ts';
import { createLocalInputs } from '../support/local-inputs.ts';
import { jsonEvents, readSse } from '../support/sse.ts';
import { TEST_SECRET, tokenFor } from '../support/tokens.ts';
import { startUpstreamStub } from '../support/upstream-stub.ts';

// closing13's walk: a real model words the same answer a little differently each time, so five captured exchanges
// of one question are five records, and they filled all five injected slots ahead of the document that answers it.
// The proxy and the chat now skip a near-duplicate of a passage already taken; the store keeps all of them.

const QUESTION = 'How many days do I have to return items for a full refund?';
const ANSWERS = [
  'You can return most items within 30 days of purchase for a full refund, as long as they are unused and in their original packaging. Keep your receipt or order number handy.',
  'Most items can be returned within 30 days of purchase for a full refund, provided they are unused and in the original packaging. Have your receipt or order number ready.',
  'You have 30 days from the date of purchase to return most items for a full refund. They need to be unused and in their original packaging, and you should keep your receipt or order number.',
  'Returns are accepted within 30 days of purchase for a full refund, as long as the item is unused and still in its original packaging. Please keep your receipt or order number.',
  'You can return most items for a full refund within 30 days of purchase if they are unused and in their original packaging. Make sure to keep your receipt or your order number.',
];
const POLICY =
  'Returns and refunds policy (updated March 2026). Customers may return most items within 30 days of purchase for a full refund. Items must be unused and in their original packaging. Final-sale items, gift cards and opened software cannot be returned. Refunds are issued to the original payment method within 5-7 business days after the return is received. To start a return, sign in to your account, open Orders, and choose Return item; you will need the order number.';

const stub = await startUpstreamStub({ behavior: { reply: 'Thirty days.' } });
const env = { DEFAULT_MODEL_BASE_URL: stub.url, DEFAULT_MODEL_API_KEY: 'sk-op' };

/** The policy, then the five exchanges as the proxy stores them (conversation records), after it. */
async function storeFor(store: Awaited<ReturnType<typeof startChat>>['store'], principal: Principal) {
  await store.add(principal, { documents: [{ fileName: 'returns-policy.md', content: POLICY }] });
  for (const [at, answer] of ANSWERS.entries()) {
    await store.add(principal, {
      context_type: 'conversation',
      documents: [{ fileName: `conversation-${at}.txt`, content: `User: ${QUESTION}\n\nAssistant: ${answer}` }],
    });
  }
  // What the injection used to be: the search's best five, all of them exchanges.
  const best = await store.search(principal, {
    query: QUESTION,
    similarity_threshold: 1,
    minimum_similarity_threshold: 0.1,
    top_k: 5,
    scope: 'internal',
  });
  expect(best.map((hit) => hit.fileName).sort()).toEqual(ANSWERS.map((_, at) => `conversation-${at}.txt`));
}

/** The messages of the last request the upstream stub received. */
const lastMessages = () =>
  (stub.requests.at(-1)?.body as { messages?: { role: string; content: string }[] } | undefined)?.messages ?? [];

const contextOf = (messages: { role: string; content: string }[]) =>
  messages.find((message) => message.role === 'system' && message.content.startsWith('[memgate:context]'))?.content;

const local = await createLocalInputs('neardup', env);
const embedder = createEmbedder(local.inputs.config);
const context = createContextServices(local.inputs, { embedder });
const proxy = createProxyServices(local.inputs, { embedder, contextStore: context.store });
const app = createProxyApp({
  ...proxy,
  background: createBackgroundWork(() => {}),
  verifier: createTokenVerifier({ kind: 'hs256', secret: TEST_SECRET }),
  logger: silentLogger,
});
const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
  const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
});
const chat = await startChat(env);
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await local.close();
  await chat.close();
  await stub.close();
});

describe('near-duplicate exchanges and the document that answers', () => {
  it('proxy: injects the document, with one of the exchanges, not five wordings of one answer', async () => {
    const principal: Principal = { userId: 'rita', orgs: [], scopes: new Set(['context:read', 'context:write']) };
    await storeFor(context.store, principal);
    const { port } = server.address() as { port: number };
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/proxy/default/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${await tokenFor('rita', { scope: 'proxy' })}`,
        'content-type': 'application/json',
        'x-memgate-store': 'off',
      },
      body: JSON.stringify({ model: 'memgate/default', messages: [{ role: 'user', content: QUESTION }] }),
    });
    expect(res.status).toBe(200);
    const injected = contextOf(lastMessages()) ?? '';
    expect(injected).toContain('returns-policy.md');
    expect(injected.match(/--- memgate passage \d+: conversation-/g)).toHaveLength(1);
    expect(res.headers.get('x-memgate-context-injected')).toBe('2');
    // The store still holds and shows every exchange.
    expect((await context.store.viewDocs(principal, { context_type: 'conversation' })).items).toHaveLength(5);
  });

  it('chat: the same, its sources naming the document', async () => {
    const principal: Principal = { userId: 'sam', orgs: [], scopes: new Set(['context:read', 'context:write']) };
    await storeFor(chat.store, principal);
    const events = jsonEvents(
      await readSse(await chat.ask('sam', { chat_history: [{ role: 'user', content: QUESTION }] })),
    );
    const injected = contextOf(lastMessages()) ?? '';
    expect(injected).toContain('returns-policy.md');
    expect(injected.match(/--- memgate passage \d+: conversation-/g)).toHaveLength(1);
    const final = events.find((event) => event.type === 'final_response') as {
      json: { sources: { fileName: string }[] };
    };
    expect(final.json.sources.map((source) => source.fileName)).toContain('returns-policy.md');
  });
});
