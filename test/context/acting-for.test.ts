import { beforeAll, describe, expect, it } from 'vitest';
import { createContextHarness } from '../support/context-app.ts';
import { createMemoryIndex } from '../support/memory-ports.ts';
import { tokenFor } from '../support/tokens.ts';

// DESIGN.md section 2: another user's records need `context:admin`. One rule, so every route refuses with the same
// status, type and message.
const ALL = 'context:read context:write context:delete';
const band = { similarity_threshold: 1, minimum_similarity_threshold: 0 };
const REFUSAL = {
  response: "another user's records (user_id 'bob') need the 'context:admin' scope",
  error: 'permission_error',
};

let h: Awaited<ReturnType<typeof createContextHarness>>;
let alice: string;
let bob: string;
let admin: string;
let bobsOrgDocument: string;

beforeAll(async () => {
  h = await createContextHarness(createMemoryIndex().index);
  alice = await tokenFor('alice', { orgs: ['acme'], scope: ALL });
  bob = await tokenFor('bob', { orgs: ['acme'], scope: ALL });
  admin = await tokenFor('carol', { orgs: ['acme'], scope: `${ALL} context:admin` });
  const shared = await h.call('POST', 'add', bob, {
    documents: [{ content: 'bob shares the rota in acme', fileName: 'rota.txt' }],
    organization_id: 'acme',
  });
  bobsOrgDocument = shared.json.contextIds[0];
  await h.call('POST', 'add', bob, { documents: [{ content: 'bob keeps a private diary', fileName: 'diary.txt' }] });
});

describe("another user's records without context:admin", () => {
  const cases: [string, () => Promise<{ status: number; json: unknown }>][] = [
    [
      'add',
      () => h.call('POST', 'add', alice, { documents: [{ content: 'x' }], user_id: 'bob', organization_id: 'acme' }),
    ],
    ['search', () => h.call('POST', 'search', alice, { query: 'rota', ...band, user_id: 'bob' })],
    ['delete by document', () => h.call('POST', 'delete', alice, { source: 'rota.txt', user_id: 'bob' })],
    ['delete by id', () => h.call('POST', 'delete', alice, { source: bobsOrgDocument, by_id: true })],
    ['view', () => h.call('GET', 'view?user_id=bob', alice)],
    ['view/docs', () => h.call('GET', 'view/docs?user_id=bob', alice)],
  ];
  for (const [route, call] of cases) {
    it(`${route}: 403 with the one message`, async () => {
      expect(await call()).toEqual({ status: 403, json: REFUSAL });
    });
  }

  it('changed nothing: the refused delete left the document', async () => {
    const docs = await h.call('GET', 'view/docs?organization_id=acme', bob);
    expect(docs.json.documents.map((d: { contextId: string }) => d.contextId)).toContain(bobsOrgDocument);
  });
});

describe('an admin acting for another user', () => {
  it("view and view/docs show that user's organization records, never their personal ones", async () => {
    await h.call('POST', 'add', admin, {
      documents: [{ content: 'carol files the budget in acme', fileName: 'budget.txt' }],
      organization_id: 'acme',
    });
    const docs = await h.call('GET', 'view/docs?user_id=bob', admin);
    expect(docs.status).toBe(200);
    expect(docs.json.documents.map((d: { fileName: string }) => d.fileName)).toEqual(['rota.txt']);
    const records = await h.call('GET', 'view?user_id=bob', admin);
    expect(records.status).toBe(200);
    const texts = JSON.stringify(records.json.context);
    expect(texts).toContain('bob shares the rota');
    expect(texts).not.toContain('private diary');
    expect(texts).not.toContain('carol files the budget');
    expect(records.json.context.every((r: { user_id: string }) => r.user_id === 'bob')).toBe(true);
  });

  it('writing into the personal records of another user is refused (an organization both share is needed)', async () => {
    const refused = await h.call('POST', 'add', admin, { documents: [{ content: 'x' }], user_id: 'bob' });
    expect(refused).toEqual({
      status: 403,
      json: { response: "writing for user_id 'bob' needs an organization_id you share", error: 'permission_error' },
    });
  });
});
