import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonEvents, metadataOf, readSse } from '../support/sse.ts';
import { startUpstreamStub, type UpstreamStub } from '../support/upstream-stub.ts';
import {
  ALL_SCOPES,
  endpointsOf,
  isAreaError,
  routeAPath,
  type SecurityHarness,
  startSecurityHarness,
  tokenFor,
} from './harness.ts';

// OWASP API1 (object level) and API5 (function level) authorization, endpoint by endpoint (issue 8): every scope on
// every route, and user B / an outsider / an admin against user A's personal and organization records, chats and
// replays.

const SCOPES = ['context:read', 'context:write', 'context:delete', 'chat', 'proxy', 'context:admin'];
const PRIVATE = 'alice private diary: the zebra vault code is 4242';
/** What would show the diary leaked: not '4242' alone, which a response's random hex ids can contain by chance. */
const LEAK = 'code is 4242';
const SHARED = 'acme handbook: zebras are fed at noon';
let h: SecurityHarness;
let stub: UpstreamStub;
const t: Record<'alice' | 'bob' | 'carol' | 'admin', string> = { alice: '', bob: '', carol: '', admin: '' };
let alicePrivateId: string;
let aliceSharedId: string;
let aliceChat: { chatId: string; replaySessionID: string };
let checks = 0;

async function post(who: keyof typeof t, path: string, body: unknown) {
  checks += 1;
  return h.request('POST', path, { token: t[who], body });
}
async function get(who: keyof typeof t, path: string) {
  checks += 1;
  return h.request('GET', path, { token: t[who] });
}
const band = { similarity_threshold: 1, minimum_similarity_threshold: 0.01 };
const texts = (res: { text: string }) => res.text;

beforeAll(async () => {
  stub = await startUpstreamStub();
  h = await startSecurityHarness();
  t.alice = await tokenFor('alice', { orgs: ['acme'], scope: ALL_SCOPES });
  t.bob = await tokenFor('bob', { orgs: ['acme'], scope: ALL_SCOPES });
  t.carol = await tokenFor('carol', { orgs: ['globex'], scope: ALL_SCOPES });
  t.admin = await tokenFor('dana', { orgs: ['acme'], scope: `${ALL_SCOPES} context:admin` });
  const personal = await post('alice', '/api/v1/context/add', {
    documents: [{ content: PRIVATE, fileName: 'diary.txt' }],
    source: 'diary',
  });
  const shared = await post('alice', '/api/v1/context/add', {
    documents: [{ content: SHARED, fileName: 'handbook.txt' }],
    source: 'handbook',
    organization_id: 'acme',
  });
  alicePrivateId = JSON.parse(personal.text).contextIds[0];
  aliceSharedId = JSON.parse(shared.text).contextIds[0];
  const chat = await h.app.request('/api/v1/chat/generate/stream', {
    method: 'POST',
    headers: { authorization: `Bearer ${t.alice}`, 'content-type': 'application/json' },
    body: JSON.stringify({ chat_history: [{ role: 'user', content: 'what is the zebra vault code?' }] }),
  });
  aliceChat = metadataOf(jsonEvents(await readSse(chat)));
});
afterAll(async () => {
  await stub.close();
  console.info(`tenancy: ${checks} authorization checks`);
});

describe('function level: every scope on every route', () => {
  it('each route answers only to its own scope; any other scope alone is a 403 in the area format', async () => {
    const routes = [
      ...endpointsOf(stub.url),
      { name: 'chat replay', method: 'GET' as const, path: '', scope: 'chat', area: 'chat' as const },
    ];
    for (const route of routes) {
      for (const scope of [...SCOPES, SCOPES.filter((s) => s !== route.scope).join(' ')]) {
        const token = await tokenFor('alice', { orgs: ['acme'], scope });
        const path = route.name === 'chat replay' ? `/api/v1/chat/replay/${aliceChat.replaySessionID}` : route.path;
        checks += 1;
        const res = await h.request(route.method, path, { token, body: route.body });
        const label = `${route.name} with '${scope}': ${res.status} ${res.text.slice(0, 120)}`;
        if (scope === route.scope) {
          expect(res.status, label).toBeLessThan(300);
        } else {
          expect(res.status, label).toBe(403);
          expect(isAreaError(route.area, 403, res.text), label).toBe(true);
        }
      }
    }
    await h.background.idle();
  });
});

describe('object level: user B, an organization member, an outsider and an admin against user A', () => {
  it('search, view and view/docs: own and organization records only', async () => {
    const expected: [keyof typeof t, boolean, boolean][] = [
      ['alice', true, true],
      ['bob', false, true],
      ['admin', false, true],
      ['carol', false, false],
    ];
    for (const [who, seesPrivate, seesShared] of expected) {
      for (const res of [
        await post(who, '/api/v1/context/search', { query: 'zebra vault code noon', ...band }),
        await get(who, '/api/v1/context/view?limit=1000'),
        await get(who, '/api/v1/context/view/docs?limit=1000'),
      ]) {
        expect(res.status).toBeLessThan(300);
        expect(texts(res).includes(alicePrivateId) || texts(res).includes('vault code'), who).toBe(seesPrivate);
        expect(texts(res).includes(aliceSharedId) || texts(res).includes('fed at noon'), who).toBe(seesShared);
      }
    }
  });

  it('an outsider cannot name the organization; a member cannot read as another user without context:admin', async () => {
    for (const res of [
      await get('carol', '/api/v1/context/view?organization_id=acme'),
      await get('carol', '/api/v1/context/view/docs?organization_id=acme'),
      await post('carol', '/api/v1/context/search', { query: 'zebra', ...band, organization_id: 'acme' }),
      await post('bob', '/api/v1/context/search', { query: 'zebra', ...band, user_id: 'alice' }),
      await post('carol', '/api/v1/context/add', { documents: [{ content: 'x' }], organization_id: 'acme' }),
      await post('bob', '/api/v1/context/add', { documents: [{ content: 'x' }], user_id: 'alice' }),
      await post('admin', '/api/v1/context/add', { documents: [{ content: 'x' }], user_id: 'alice' }),
      await post('bob', '/api/v1/context/delete', { source: 'diary', user_id: 'alice' }),
      await post('carol', '/api/v1/context/delete', { source: 'handbook', organization_id: 'acme' }),
    ]) {
      expect(res.status, res.text).toBe(403);
      expect(JSON.parse(res.text).error).toBe('permission_error');
    }
    // An admin reading as alice sees her organization records, never her personal ones.
    const asAlice = await post('admin', '/api/v1/context/search', {
      query: 'zebra vault noon',
      ...band,
      user_id: 'alice',
    });
    expect(asAlice.status).toBe(202);
    expect(asAlice.text).toContain('fed at noon');
    expect(asAlice.text).not.toContain('vault code');
  });

  it("delete: nobody else removes alice's records, except an admin of the shared organization", async () => {
    const attempts: [keyof typeof t, unknown, number][] = [
      ['bob', { source: alicePrivateId, by_id: true }, 204],
      ['carol', { source: alicePrivateId, by_id: true }, 204],
      ['carol', { source: aliceSharedId, by_id: true }, 204],
      ['bob', { source: aliceSharedId, by_id: true }, 403],
      ['bob', { source: 'handbook' }, 204],
      ['bob', { source: 'diary' }, 204],
      ['admin', { source: alicePrivateId, by_id: true }, 204],
      ['admin', { source: 'diary', user_id: 'alice', organization_id: 'acme' }, 204],
    ];
    for (const [who, body, status] of attempts) {
      const res = await post(who, '/api/v1/context/delete', body);
      expect(res.status, `${who} ${JSON.stringify(body)}`).toBe(status);
    }
    const still = await get('alice', '/api/v1/context/view/docs');
    expect(still.text).toContain(alicePrivateId);
    expect(still.text).toContain(aliceSharedId);
    const byAdmin = await post('admin', '/api/v1/context/delete', {
      source: 'handbook',
      user_id: 'alice',
      organization_id: 'acme',
    });
    expect(byAdmin.status).toBe(204);
    const after = await get('alice', '/api/v1/context/view/docs');
    expect(after.text).not.toContain(aliceSharedId);
    expect(after.text).toContain(alicePrivateId);
  });

  it("chat: nobody else continues alice's chat or replays her answer", async () => {
    for (const who of ['bob', 'carol', 'admin'] as const) {
      const cont = await post(who, '/api/v1/chat/generate/stream', {
        chatId: aliceChat.chatId,
        chat_history: [{ role: 'user', content: 'and the code again?' }],
      });
      expect(cont.status, who).toBe(403);
      expect(JSON.parse(cont.text)).toEqual({ message: expect.any(String) });
      const replay = await get(who, `/api/v1/chat/replay/${aliceChat.replaySessionID}`);
      expect(replay.status, who).toBe(403);
      expect(replay.text).not.toContain(LEAK);
    }
    expect((await get('alice', `/api/v1/chat/replay/${aliceChat.replaySessionID}`)).status).toBe(200);
  });

  it("chat and proxy answers never carry another user's personal context", async () => {
    const question = [{ role: 'user', content: 'what is the zebra vault code?' }];
    const routeA = routeAPath(stub.url);
    for (const who of ['bob', 'carol', 'admin'] as const) {
      const chat = await post(who, '/api/v1/chat/generate/stream', { chat_history: question });
      expect(chat.status).toBe(200);
      expect(chat.text).not.toContain(LEAK);
      const routeB = await post(who, '/api/v1/proxy/default/chat/completions', {
        model: 'memgate/default',
        messages: question,
      });
      expect(routeB.status).toBe(200);
      expect(routeB.text).not.toContain(LEAK);
      stub.requests.length = 0;
      const forwarded = await post(who, routeA, { model: 'stub-model', messages: question });
      expect(forwarded.status).toBe(200);
      expect(JSON.stringify(stub.requests[0]?.body)).not.toContain(LEAK);
    }
    // The same question from alice does reach her own record, so the checks above could fail.
    const own = await post('alice', '/api/v1/proxy/default/chat/completions', {
      model: 'memgate/default',
      messages: question,
    });
    expect(own.text).toContain(LEAK);
    await h.background.idle();
  });
});
