import { beforeAll, describe, expect, it } from 'vitest';
import { createContextHarness } from '../support/context-app.ts';
import { createMemoryIndex } from '../support/memory-ports.ts';
import { tokenFor } from '../support/tokens.ts';

// View cursors come back from callers, so they are input like any other (issue 12, item 13): whatever a caller
// sends as `cursor` is either a position in its own listing or a 400 `validation_error` naming the cursor, never a
// 500 from DynamoDB ("The provided starting key is invalid") and never a position in another tenant's partition.

const ALL = 'context:read context:write context:delete';
const ROUTES = ['view', 'view/docs'] as const;

let h: Awaited<ReturnType<typeof createContextHarness>>;
let alice: string;
let bob: string;
/** Cursors of the first page of each listing, taken from real responses. */
const cursors: Record<string, string> = {};

const b64 = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const decoded = (cursor: string) => JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));

async function firstPage(token: string, route: string, query = '') {
  const page = await h.call('GET', `${route}?limit=1${query}`, token);
  expect(page.status).toBe(200);
  expect(page.json.nextCursor).toEqual(expect.any(String));
  return page.json.nextCursor as string;
}

beforeAll(async () => {
  h = await createContextHarness(createMemoryIndex().index);
  alice = await tokenFor('alice', { orgs: ['acme', 'beta'], scope: ALL });
  bob = await tokenFor('bob', { orgs: ['acme'], scope: ALL });
  for (const [token, organization_id] of [
    [alice, undefined],
    [alice, 'acme'],
    [alice, 'beta'],
    [bob, undefined],
  ] as const) {
    const documents = ['one', 'two', 'three'].map((name) => ({
      content: `The ${name} notes of this tenant.`,
      fileName: `${name}.txt`,
    }));
    const added = await h.call('POST', 'add', token, { documents, source: 's', organization_id });
    expect(added.status).toBe(201);
  }
  for (const route of ROUTES) {
    cursors[`alice ${route}`] = await firstPage(alice, route);
    cursors[`alice acme ${route}`] = await firstPage(alice, route, '&organization_id=acme');
    cursors[`bob ${route}`] = await firstPage(bob, route);
  }
});

/** A cursor that is a well-formed view cursor around a repository key of the caller's choosing. */
function around(key: unknown, t = 0) {
  return b64({ t, c: b64(key) });
}

describe.each(ROUTES)('%s cursor', (route) => {
  async function expectRefused(token: string, cursor: string, label: string) {
    const res = await h.call('GET', `${route}?limit=5&cursor=${encodeURIComponent(cursor)}`, token);
    expect(res.status, `${label}: ${JSON.stringify(res.json)}`).toBe(400);
    // The message names the parameter at fault first, as every other validation message does.
    expect(res.json, label).toEqual({ response: expect.stringMatching(/^cursor\b/), error: 'validation_error' });
  }

  it('pages through the listing with the cursors it returns', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; json: { nextCursor: string | null; [k: string]: unknown } } = await h.call(
        'GET',
        `${route}?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
        bob,
      );
      expect(page.status).toBe(200);
      const items = (page.json.documents ?? page.json.context) as { contextId?: string; _id?: string }[];
      seen.push(...items.map((item) => (item.contextId ?? item._id) as string));
      cursor = page.json.nextCursor;
    } while (cursor);
    // bob's own three documents (and, on view, their chunks) plus acme's three, each once.
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBe(route === 'view' ? 12 : 6);
  });

  it.each([
    ['random text', 'not a cursor at all'],
    ['random bytes', Buffer.from(Array.from({ length: 48 }, (_, i) => (i * 97 + 13) % 256)).toString('base64url')],
    ['base64 of a JSON number', b64(42)],
    ['base64 of an array', b64([0, null])],
    ['a negative partition', b64({ t: -1, c: null })],
    ['a partition the caller does not have', b64({ t: 7, c: null })],
    ['a fractional partition', b64({ t: 0.5, c: null })],
    ['a cursor that is an object', b64({ t: 0, c: { pk: 'x' } })],
    ['garbage inside', b64({ t: 0, c: 'not base64 json' })],
    ['an empty key', around({})],
    ['a key with numbers', around({ pk: 1, sk: 2, gsi1pk: 3, gsi1sk: 4, gsi3pk: 5, gsi3sk: 6 })],
    ['a key with empty strings', around({ pk: '', sk: '', gsi1pk: '', gsi1sk: '', gsi3pk: '', gsi3sk: '' })],
    ['a key of the table only', around({ pk: 'ctx#doc_x', sk: 'ctx' })],
    [
      'a key too long for DynamoDB',
      around({
        pk: `ctx#${'x'.repeat(3000)}`,
        sk: 'ctx',
        gsi1pk: 'ctx#user:bob',
        gsi1sk: 'x'.repeat(2000),
        gsi3pk: 'ctx#user:bob',
        gsi3sk: 'x'.repeat(2000),
      }),
    ],
  ])('400 validation_error for %s', async (label, cursor) => {
    await expectRefused(bob, cursor, label);
  });

  it('400 for a real key with one attribute more', async () => {
    const key = decoded(decoded(cursors[`bob ${route}`] as string).c);
    await expectRefused(bob, around({ ...key, more: 'x' }), 'an extra attribute');
  });

  it("400 for another tenant's cursor: it never pages that tenant's partition", async () => {
    await expectRefused(bob, cursors[`alice ${route}`] as string, "alice's own listing");
    await expectRefused(alice, cursors[`bob ${route}`] as string, "bob's own listing");
  });

  it("400 for a cursor of another organization's listing or another partition of the caller's", async () => {
    // alice's acme cursor names acme's partition: it is not a position in her beta listing or her own one.
    await expectRefused(alice, `${cursors[`alice acme ${route}`]}`, 'acme cursor in her full listing');
    const res = await h.call(
      'GET',
      `${route}?limit=5&organization_id=beta&cursor=${cursors[`alice acme ${route}`]}`,
      alice,
    );
    expect(res.status).toBe(400);
    expect(res.json.error).toBe('validation_error');
  });

  it('400 for a cursor of the other listing (records vs documents)', async () => {
    const other = route === 'view' ? 'view/docs' : 'view';
    await expectRefused(bob, cursors[`bob ${other}`] as string, `a ${other} cursor`);
  });
});
