import { createContextServices } from '@memgate/adapters/services/context';
import { createEmbedder } from '@memgate/adapters/services/embedder';
import { createProxyServices } from '@memgate/adapters/services/proxy';
import type { Principal } from '@memgate/core';
import { createBackgroundWork, createProxyApp, createTokenVerifier, silentLogger } from '@memgate/http';
import { afterAll, describe, expect, it } from 'vitest';
import { createLocalInputs } from '../support/local-inputs.ts';
import { TEST_SECRET, tokenFor } from '../support/tokens.ts';

// Issue 12 item 7, DESIGN.md section 4: captured exchanges follow their sources. An exchange answered from an
// organization's records is stored in that organization (owner: the caller), never copied into the caller's own
// records; one answered from several organizations is not stored. Real parts: DynamoDB Local, the embedded index.
const local = await createLocalInputs('capture');
const { inputs } = local;
const embedder = createEmbedder(inputs.config);
const { store } = createContextServices(inputs, { embedder });
const background = createBackgroundWork((error) => {
  throw error;
});
const app = createProxyApp({
  ...createProxyServices(inputs, { embedder, contextStore: store }),
  background,
  verifier: createTokenVerifier({ kind: 'hs256', secret: TEST_SECRET }),
  logger: silentLogger,
});
afterAll(async () => {
  await local.close();
});

const member = (userId: string, orgs: string[]): Principal => ({
  userId,
  orgs,
  scopes: new Set(['context:read', 'context:write', 'context:delete']),
});
const band = { similarity_threshold: 1, minimum_similarity_threshold: 0 };

/** Asks route B as `userId` with the organizations `orgs`, then waits for the capture to finish. */
async function ask(userId: string, orgs: string[], question: string): Promise<{ answer: string; injected: number }> {
  const token = await tokenFor(userId, { orgs, scope: 'proxy' });
  const response = await app.request('/api/v1/proxy/default/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'memgate/default', messages: [{ role: 'user', content: question }] }),
  });
  expect(response.status).toBe(200);
  await background.idle();
  const injected = Number(response.headers.get('x-memgate-context-injected'));
  return { answer: (await response.json()).choices[0].message.content, injected };
}

/** Every text a principal can reach: search over the words, and the full view. */
async function reachable(principal: Principal, query: string): Promise<string> {
  const hits = await store.search(principal, { query, ...band, top_k: 100 });
  const view = await store.view(principal, { limit: 1000 });
  return [...hits.map((hit) => hit.contextData), ...view.items.map((record) => record.text)].join('\n');
}

describe('captured exchanges follow their sources', () => {
  it("Bob's question about Acme's handbook is stored in Acme; after the handbook goes and Bob leaves, Bob has none of it", async () => {
    const sentence = 'New staff collect their badge from the front desk on the first morning.';
    await store.add(member('alice', ['acme']), {
      documents: [{ fileName: 'handbook.md', content: `Welcome to Acme. ${sentence} Lunch is at noon.` }],
      organization_id: 'acme',
    });
    const { answer } = await ask('bob', ['acme'], 'Where do new staff collect their badge?');
    expect(answer).toContain('front desk');

    const inAcme = await store.view(member('bob', ['acme']), { organization_id: 'acme', context_type: 'conversation' });
    const documents = inAcme.items.filter((record) => record.kind === 'document');
    expect(documents).toHaveLength(1);
    expect(documents[0]).toMatchObject({ user_id: 'bob', organization_id: 'acme' });

    await store.delete(member('alice', ['acme']), { source: 'handbook.md' });
    const bobAlone = member('bob', []);
    expect(await reachable(bobAlone, 'new staff collect badge front desk first morning')).not.toContain('front desk');
    // Acme keeps the exchange (its members still reach it), with its owner.
    expect(await reachable(member('dora', ['acme']), 'badge front desk')).toContain('front desk');
  });

  it('an answer drawn from two organizations is not stored anywhere', async () => {
    await store.add(member('alice', ['acme']), {
      documents: [{ fileName: 'acme-parking.md', content: 'Acme parking: bays twelve to twenty on level two.' }],
      organization_id: 'acme',
    });
    await store.add(member('ben', ['beta']), {
      documents: [{ fileName: 'beta-parking.md', content: 'Beta parking: bays one to eight on level two.' }],
      organization_id: 'beta',
    });
    const asked = await ask('carol', ['acme', 'beta'], 'Which parking bays on level two?');
    expect(asked.injected).toBe(2);
    for (const principal of [member('carol', []), member('carol', ['acme', 'beta'])]) {
      const view = await store.view(principal, { context_type: 'conversation', limit: 1000 });
      expect(view.items.filter((record) => record.user_id === 'carol')).toEqual([]);
    }
  });

  it('an answer drawn only from the caller’s own records is stored in the caller’s own records', async () => {
    await store.add(member('erin', []), {
      documents: [{ fileName: 'plants.md', content: 'The fern is watered every Sunday morning.' }],
    });
    await ask('erin', [], 'When is the fern watered?');
    const view = await store.view(member('erin', []), { context_type: 'conversation' });
    const documents = view.items.filter((record) => record.kind === 'document');
    expect(documents).toHaveLength(1);
    expect(documents[0]).toMatchObject({ user_id: 'erin', organization_id: null });
  });
});
