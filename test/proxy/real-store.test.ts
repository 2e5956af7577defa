import { serve } from '@hono/node-server';
import { createContextServices } from '@memgate/adapters/services/context';
import { createEmbedder } from '@memgate/adapters/services/embedder';
import { createProxyServices } from '@memgate/adapters/services/proxy';
import type { Principal } from '@memgate/core';
import { createBackgroundWork, createProxyApp, createTokenVerifier, silentLogger } from '@memgate/http';
import OpenAI from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalInputs } from '../support/local-inputs.ts';
import { TEST_SECRET, tokenFor } from '../support/tokens.ts';

// The proxy on the real local pieces: DynamoDB Local, the embedded vector index, the lexical embedder.
const local = await createLocalInputs('proxy');
const { inputs } = local;
const embedder = createEmbedder(inputs.config);
// Built piece by piece rather than with createServices, so this test does not depend on the chat area's services.
const context = createContextServices(inputs, { embedder });
const services = { context, proxy: createProxyServices(inputs, { embedder, contextStore: context.store }) };
const background = createBackgroundWork((error) => {
  throw error;
});
const app = createProxyApp({
  ...services.proxy,
  background,
  verifier: createTokenVerifier({ kind: 'hs256', secret: TEST_SECRET }),
  logger: silentLogger,
});
const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
  const started = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(started));
});
const { port } = server.address() as { port: number };
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await local.close();
});

describe('proxy route B on the real context store', () => {
  it('answers from a stored document and stores the exchange as a conversation record', async () => {
    const principal: Principal = { userId: 'erin', orgs: [], scopes: new Set(['context:read', 'context:write']) };
    const store = services.context.store;
    await store.add(principal, {
      documents: [
        {
          fileName: 'kitchen.md',
          content: 'The dishwasher runs every evening at eight. Coffee beans are kept in the top left cupboard.',
        },
      ],
    });
    const client = new OpenAI({
      baseURL: `http://127.0.0.1:${port}/api/v1/proxy/default`,
      apiKey: await tokenFor('erin', { scope: 'proxy' }),
      maxRetries: 0,
    });
    const completion = await client.chat.completions.create({
      model: 'memgate/default',
      messages: [{ role: 'user', content: 'Where are the coffee beans kept?' }],
    });
    expect(completion.choices[0]?.message.content).toBe('Coffee beans are kept in the top left cupboard.');
    await background.idle();
    // Asked again, the stored exchange is context too: the answer is not the question echoed, nor doubled.
    const again = await client.chat.completions.create({
      model: 'memgate/default',
      messages: [{ role: 'user', content: 'Where are the coffee beans kept?' }],
    });
    expect(again.choices[0]?.message.content).toBe('Coffee beans are kept in the top left cupboard.');
    await background.idle();
    const view = await store.view(principal, { context_type: 'conversation' });
    const texts = view.items.map((record) => record.text ?? '').join('\n');
    expect(texts).toContain('Where are the coffee beans kept?');
  });

  it('reads a question sent as content parts by its text parts: context found, exchange stored as text', async () => {
    const principal: Principal = { userId: 'frank', orgs: [], scopes: new Set(['context:read', 'context:write']) };
    const store = services.context.store;
    await store.add(principal, {
      documents: [
        { fileName: 'house.md', content: 'The spare key is under the blue flower pot. The boiler is serviced in May.' },
      ],
    });
    const client = new OpenAI({
      baseURL: `http://127.0.0.1:${port}/api/v1/proxy/default`,
      apiKey: await tokenFor('frank', { scope: 'proxy' }),
      maxRetries: 0,
    });
    // What SDKs send for a question with an image (LangChain and the Responses API's items send text as parts too).
    const completion = await client.chat.completions.create({
      model: 'memgate/default',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Where is the spare key?' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAE' } },
          ],
        },
      ],
    });
    expect(completion.choices[0]?.message.content).toBe('The spare key is under the blue flower pot.');
    await background.idle();
    const view = await store.view(principal, { context_type: 'conversation' });
    expect(view.items.map((record) => record.text)).toContain(
      'User: Where is the spare key?\n\nAssistant: The spare key is under the blue flower pot.',
    );
  });

  it('stores the exchange of a question longer than a document may be, its question cut to fit', async () => {
    const principal: Principal = { userId: 'gus', orgs: [], scopes: new Set(['context:read']) };
    const client = new OpenAI({
      baseURL: `http://127.0.0.1:${port}/api/v1/proxy/default`,
      apiKey: await tokenFor('gus', { scope: 'proxy' }),
      maxRetries: 0,
    });
    // 1,200,000 characters: within the 6 MB body limit, over the 1,000,000 characters of one stored document.
    const question = `${'Notes from the long meeting. '.repeat(41_380)}What did we decide?`;
    expect(question.length).toBeGreaterThan(1_200_000);
    const completion = await client.chat.completions.create({
      model: 'memgate/default',
      messages: [{ role: 'user', content: question }],
    });
    const reply = completion.choices[0]?.message.content ?? '';
    await background.idle();
    const records = (await services.context.store.view(principal, { context_type: 'conversation', limit: 1000 })).items;
    const stored = records.find((record) => record.kind === 'document');
    expect(stored?.metadata.size).toBe(1_000_000);
    const lastChunk = records.find((record) => record._id === stored?.children_context_nodes.at(-1));
    expect(lastChunk?.text.endsWith(`\n\nAssistant: ${reply}`)).toBe(true);
  });

  it('stores a question asked again with the same answer once, so it never crowds out the document that answers it', async () => {
    const principal: Principal = { userId: 'gina', orgs: [], scopes: new Set(['context:read', 'context:write']) };
    const store = services.context.store;
    await store.add(principal, {
      documents: [{ fileName: 'plan.md', content: 'The launch is planned for March. Budget owner: Dana.' }],
    });
    const client = new OpenAI({
      baseURL: `http://127.0.0.1:${port}/api/v1/proxy/default`,
      apiKey: await tokenFor('gina', { scope: 'proxy' }),
      maxRetries: 0,
    });
    const ask = () =>
      client.chat.completions.create({
        model: 'memgate/default',
        messages: [{ role: 'user', content: 'When is the launch?' }],
      });
    // Two at once (one capture batch: an add takes the same document twice as one), then one by one.
    await Promise.all([ask(), ask()]);
    await background.idle();
    for (let turn = 0; turn < 5; turn += 1) {
      expect((await ask()).choices[0]?.message.content).toBe('The launch is planned for March.');
      await background.idle();
    }
    const docs = await store.viewDocs(principal, { context_type: 'conversation' });
    expect(docs.items).toHaveLength(1);
    // What the proxy injects (its top 5) still holds the document itself.
    const hits = await store.search(principal, {
      query: 'When is the launch?',
      similarity_threshold: 1,
      minimum_similarity_threshold: 0.1,
      top_k: 5,
    });
    expect(hits.map((hit) => hit.fileName)).toContain('plan.md');
  });
});
