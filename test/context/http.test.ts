import { beforeAll, describe, expect, it } from 'vitest';
import { createContextHarness } from '../support/context-app.ts';
import { createMemoryIndex } from '../support/memory-ports.ts';
import { tokenFor } from '../support/tokens.ts';

const ALL = 'context:read context:write context:delete';
const band = { similarity_threshold: 1, minimum_similarity_threshold: 0 };

let h: Awaited<ReturnType<typeof createContextHarness>>;
let alice: string;
let bob: string;
let admin: string;

beforeAll(async () => {
  h = await createContextHarness(createMemoryIndex().index);
  alice = await tokenFor('alice', { orgs: ['acme'], scope: ALL });
  bob = await tokenFor('bob', { orgs: ['acme'], scope: ALL });
  admin = await tokenFor('carol', { orgs: ['acme'], scope: `${ALL} context:admin` });
});

const doc = (content: string, fileName = 'notes.txt') => ({ content, fileName, fileType: 'text/plain' });

async function docsOf(token: string, query = '') {
  const { status, json } = await h.call('GET', `view/docs${query}`, token);
  expect(status).toBe(200);
  return json.documents as { contextId: string; fileName: string; chunks: number }[];
}

describe('add', () => {
  it('stores documents and chunks, answers 201 with ids, and the text is searchable at once', async () => {
    const token = await tokenFor('dana', { scope: ALL });
    const added = await h.call('POST', 'add', token, {
      documents: [
        doc('Penguins live in Antarctica and eat krill.', 'birds.txt'),
        doc('Volcanoes erupt lava.', 'geo.txt'),
      ],
      source: 'wiki',
    });
    expect(added.status).toBe(201);
    expect(added.json.contextIds).toHaveLength(2);
    expect(added.json.documents[0]).toMatchObject({ fileName: 'birds.txt', chunks: 1 });

    const found = await h.call('POST', 'search', token, { query: 'penguins krill', ...band });
    expect(found.status).toBe(202);
    expect(found.json.results[0]).toMatchObject({
      contextData: 'Penguins live in Antarctica and eat krill.',
      documentId: added.json.contextIds[0],
      fileName: 'birds.txt',
      source: 'wiki',
    });

    const view = await h.call('GET', 'view', token);
    const document = view.json.context.find((r: { _id: string }) => r._id === added.json.contextIds[0]);
    expect(document).toMatchObject({
      user_id: 'dana',
      organization_id: null,
      context_type: 'resource',
      scopes: ['internal'],
      indexed: true,
      metadata: { file_name: 'birds.txt', doc_type: 'text/plain', modalities: ['text'] },
    });
    const chunk = view.json.context.find((r: { _id: string }) => r._id === document.children_context_nodes[0]);
    expect(chunk).toMatchObject({ parent_context_nodes: [document._id], indexed: true, text: expect.any(String) });
    expect(chunk.corresponding_vector_id).toBe(chunk._id);
  });

  it('chunks long documents losslessly: chunk texts in order give the document back', async () => {
    const token = await tokenFor('erin', { scope: ALL });
    const content = Array.from({ length: 400 }, (_, i) => `Sentence number ${i} about topic ${i % 7}.`).join(' ');
    const added = await h.call('POST', 'add', token, { documents: [doc(content, 'long.txt')] });
    expect(added.json.documents[0].chunks).toBeGreaterThan(3);
    const records = (await h.call('GET', 'view?limit=1000', token)).json.context;
    const document = records.find((r: { _id: string }) => r._id === added.json.contextIds[0]);
    const byId = new Map(records.map((r: { _id: string; text: string }) => [r._id, r.text]));
    expect(document.children_context_nodes.map((id: string) => byId.get(id)).join('')).toBe(content);
  });

  it('is idempotent: adding the same document again gives the same id and no duplicates', async () => {
    const token = await tokenFor('frank', { scope: ALL });
    const body = { documents: [doc('The same text twice.')], source: 's' };
    const first = await h.call('POST', 'add', token, body);
    const second = await h.call('POST', 'add', token, body);
    expect(second.json.contextIds).toEqual(first.json.contextIds);
    expect(await docsOf(token)).toHaveLength(1);
    expect((await h.call('GET', 'view', token)).json.context).toHaveLength(2);
    const found = await h.call('POST', 'search', token, { query: 'same text', ...band });
    expect(found.json.results).toHaveLength(1);
  });

  it('accepts chained and modalities in both forms', async () => {
    const token = await tokenFor('gina', { scope: ALL });
    for (const [chained, modalities] of [
      ['true', 'text, image'],
      [true, ['text', 'image']],
    ] as const) {
      const added = await h.call('POST', 'add', token, {
        documents: [doc(`first ${String(chained)}`, 'a'), doc(`second ${String(chained)}`, 'b')],
        chained,
        metadata: { modalities },
      });
      expect(added.status).toBe(201);
      const [a, b] = added.json.contextIds;
      const records = (await h.call('GET', 'view', token)).json.context;
      const first = records.find((r: { _id: string }) => r._id === a);
      const second = records.find((r: { _id: string }) => r._id === b);
      expect(first.children_context_nodes).toContain(b);
      expect(second.parent_context_nodes).toContain(a);
      expect(first.metadata.modalities).toEqual(['text', 'image']);
    }
  });

  it('refuses bad input with 400 naming the field, and writes nothing', async () => {
    const token = await tokenFor('hank', { scope: ALL });
    const cases: [unknown, string][] = [
      [{}, 'documents'],
      [{ documents: [] }, 'documents'],
      [{ documents: [{ content: '   ' }] }, 'documents'],
      [{ documents: [{ content: 5 }] }, 'documents[0].content'],
      [{ documents: [doc('x')], scope: 'public' }, 'scope'],
      [{ documents: [doc('x')], context_type: 'blog' }, 'context_type'],
      [{ documents: [doc('x')], chained: 'yes' }, 'chained'],
      [{ documents: Array.from({ length: 101 }, () => doc('x')) }, 'documents'],
      [{ documents: [doc('x'.repeat(1_000_001))] }, 'documents[0].content'],
      ['{not json', 'body'],
    ];
    for (const [body, field] of cases) {
      const { status, json } = await h.call('POST', 'add', token, body);
      expect(status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(json).toMatchObject({ error: 'validation_error', response: expect.stringContaining(field) });
    }
    expect(await docsOf(token)).toEqual([]);
  });

  it('answers 413 for a body over 6 MB', async () => {
    const big = { documents: [doc('y'.repeat(7 * 1024 * 1024))] };
    const { status, json } = await h.call('POST', 'add', alice, big);
    expect(status).toBe(413);
    expect(json.error).toBe('payload_too_large');
  });
});

describe('authentication and tenancy', () => {
  it('401 without a token, 403 without the scope, 402 on view/docs for an unusable sub', async () => {
    expect((await h.call('POST', 'add', undefined, { documents: [doc('x')] })).status).toBe(401);
    const reader = await tokenFor('ivan', { scope: 'context:read' });
    const refused = await h.call('POST', 'add', reader, { documents: [doc('x')] });
    expect(refused).toMatchObject({ status: 403, json: { error: 'permission_error' } });
    expect((await h.call('POST', 'delete', reader, { source: 'x' })).status).toBe(403);
    const badSub = await tokenFor('bad user!', { scope: ALL });
    expect((await h.call('GET', 'view/docs', badSub)).json.error).toBe('invalid_user');
    expect((await h.call('GET', 'view/docs', badSub)).status).toBe(402);
    expect((await h.call('GET', 'view', badSub)).status).toBe(401);
  });

  it('403 for an organization outside the token, or another user_id without context:admin', async () => {
    expect((await h.call('POST', 'add', alice, { documents: [doc('x')], organization_id: 'globex' })).status).toBe(403);
    expect((await h.call('POST', 'add', alice, { documents: [doc('x')], user_id: 'bob' })).status).toBe(403);
    expect((await h.call('GET', 'view/docs?organization_id=globex', alice)).status).toBe(403);
    expect((await h.call('POST', 'search', alice, { query: 'x', ...band, user_id: 'bob' })).status).toBe(403);
    const asBob = { documents: [doc('admin wrote this for bob')], user_id: 'bob', organization_id: 'acme' };
    expect((await h.call('POST', 'add', admin, asBob)).status).toBe(201);
  });

  it("shows own and organization records, never another user's personal records", async () => {
    await h.call('POST', 'add', alice, { documents: [doc('alice private diary about zebras', 'diary')] });
    await h.call('POST', 'add', alice, {
      documents: [doc('acme handbook about zebras', 'handbook')],
      organization_id: 'acme',
    });
    const bobSees = await h.call('POST', 'search', bob, { query: 'zebras', ...band });
    const names = (results: { fileName: string }[]) => results.map((r) => r.fileName);
    expect(names(bobSees.json.results)).toContain('handbook');
    expect(names(bobSees.json.results)).not.toContain('diary');
    const aliceSees = await h.call('POST', 'search', alice, { query: 'zebras', ...band });
    expect(names(aliceSees.json.results)).toEqual(expect.arrayContaining(['diary', 'handbook']));
    const orgOnly = await h.call('POST', 'search', alice, { query: 'zebras', ...band, organization_id: 'acme' });
    expect(names(orgOnly.json.results)).not.toContain('diary');
    const docs = await docsOf(bob, '?organization_id=acme');
    expect(docs.map((d) => d.fileName)).toContain('handbook');
  });
});

describe('search', () => {
  it('keeps results inside the similarity band, best first, at most top_k, narrowed by scope and metadata', async () => {
    const token = await tokenFor('judy', { scope: ALL });
    await h.call('POST', 'add', token, {
      documents: [
        doc('red apples and green apples', 'apples'),
        doc('apples and pears', 'fruit'),
        doc('unrelated astronomy text', 'stars'),
      ],
    });
    await h.call('POST', 'add', token, { documents: [doc('external apples', 'ext')], scope: 'external' });
    const all = (await h.call('POST', 'search', token, { query: 'apples', ...band })).json.results;
    const scores = all.map((r: { score: number }) => r.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(all.map((r: { fileName: string }) => r.fileName)).not.toContain('ext');
    const top = all[0].score;
    const narrow = await h.call('POST', 'search', token, {
      query: 'apples',
      similarity_threshold: top - 1e-6,
      minimum_similarity_threshold: 0.01,
    });
    expect(narrow.json.results.every((r: { score: number }) => r.score <= top - 1e-6 && r.score >= 0.01)).toBe(true);
    expect(narrow.json.results.length).toBeLessThan(all.length);
    expect((await h.call('POST', 'search', token, { query: 'apples', ...band, top_k: 1 })).json.results).toHaveLength(
      1,
    );
    const external = await h.call('POST', 'search', token, { query: 'apples', ...band, scope: 'external' });
    expect(external.json.results.map((r: { fileName: string }) => r.fileName)).toEqual(['ext']);
    const byName = await h.call('POST', 'search', token, {
      query: 'apples',
      ...band,
      metadata: { file_name: 'fruit' },
    });
    expect(byName.json.results.map((r: { fileName: string }) => r.fileName)).toEqual(['fruit']);
  });

  it('refuses bad parameters with 400', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ ...band }, 'query'],
      [{ query: '', ...band }, 'query'],
      [{ query: 'x'.repeat(10_001), ...band }, 'query'],
      [{ query: 'x', similarity_threshold: 1.5, minimum_similarity_threshold: 0 }, 'similarity_threshold'],
      [{ query: 'x', similarity_threshold: 0.2, minimum_similarity_threshold: 0.5 }, 'minimum_similarity_threshold'],
      [{ query: 'x', minimum_similarity_threshold: 0 }, 'similarity_threshold'],
      [{ query: 'x', ...band, top_k: 101 }, 'top_k'],
      [{ query: 'x', ...band, metadata: { file_name: 3 } }, 'metadata.file_name'],
      // Not a filter: results were not narrowed, and nothing said so (`fileName` is the result's field).
      [{ query: 'x', ...band, metadata: { fileName: 'fruit' } }, 'metadata.fileName: not a search filter'],
    ];
    for (const [body, field] of cases) {
      const { status, json } = await h.call('POST', 'search', alice, body);
      expect(status, field).toBe(400);
      expect(json.response).toContain(field);
    }
  });
});

describe('delete', () => {
  it('by_doc removes documents by source or file name with their chunks; by_id removes one record; both idempotent', async () => {
    const token = await tokenFor('kim', { scope: ALL });
    const added = await h.call('POST', 'add', token, {
      documents: [doc('kiwi fruit facts', 'kiwi.txt'), doc('mango fruit facts', 'mango.txt')],
      source: 'fruits',
    });
    expect((await h.call('POST', 'delete', token, { source: 'kiwi.txt' })).status).toBe(204);
    expect((await docsOf(token)).map((d) => d.fileName)).toEqual(['mango.txt']);
    const left = (await h.call('POST', 'search', token, { query: 'fruit facts', ...band })).json.results;
    expect(left.map((r: { fileName: string }) => r.fileName)).toEqual(['mango.txt']);
    expect((await h.call('POST', 'delete', token, { source: added.json.contextIds[1], by_id: true })).status).toBe(204);
    expect(await docsOf(token)).toEqual([]);
    expect((await h.call('GET', 'view', token)).json.context).toEqual([]);
    expect((await h.call('POST', 'delete', token, { source: 'fruits' })).status).toBe(204);
  });

  it("by_id on one chunk takes it out of its document's chunks and children; adding the document again restores it", async () => {
    const token = await tokenFor('nell', { scope: ALL });
    const content = Array.from({ length: 400 }, (_, i) => `Line ${i} of the harbour log, tide ${i % 5}.`).join(' ');
    const added = await h.call('POST', 'add', token, { documents: [doc(content, 'harbour.txt')] });
    const [documentId] = added.json.contextIds as string[];
    const chunks = added.json.documents[0].chunks as number;
    expect(chunks).toBeGreaterThan(3);
    const childrenOf = async () =>
      (await h.call('GET', 'view?limit=1000', token)).json.context.find((r: { _id: string }) => r._id === documentId)
        .children_context_nodes as string[];
    const [, second, ...rest] = await childrenOf();
    expect((await h.call('POST', 'delete', token, { source: second, by_id: true })).status).toBe(204);
    expect((await docsOf(token)).map((d) => d.chunks)).toEqual([chunks - 1]);
    const after = await childrenOf();
    expect(after).not.toContain(second);
    expect(after).toHaveLength(rest.length + 1);
    // The chunks a user can see are the ones the document lists.
    const records = (await h.call('GET', 'view?limit=1000', token)).json.context as { _id: string }[];
    expect(
      records
        .filter((r) => r._id !== documentId)
        .map((r) => r._id)
        .sort(),
    ).toEqual([...after].sort());
    // Deleting it again is still a 204 and changes nothing.
    expect((await h.call('POST', 'delete', token, { source: second, by_id: true })).status).toBe(204);
    expect((await docsOf(token)).map((d) => d.chunks)).toEqual([chunks - 1]);
    // The same document added again is whole again (it was not the add's own rows any more).
    expect((await h.call('POST', 'add', token, { documents: [doc(content, 'harbour.txt')] })).status).toBe(201);
    expect((await docsOf(token)).map((d) => d.chunks)).toEqual([chunks]);
    expect(await childrenOf()).toContain(second);
  });

  it("by_id on a chained document takes it out of its neighbours' links in view; nothing else changes", async () => {
    const token = await tokenFor('olga', { scope: ALL });
    const added = await h.call('POST', 'add', token, {
      documents: [doc('first of the chain', 'c1'), doc('second of the chain', 'c2'), doc('third of the chain', 'c3')],
      chained: 'true',
    });
    const [c1, c2, c3] = added.json.contextIds as string[];
    type Row = { _id: string; parent_context_nodes: string[]; children_context_nodes: string[] };
    const before = (await h.call('GET', 'view', token)).json.context as Row[];
    expect(before.find((r) => r._id === c1)?.children_context_nodes).toContain(c2);
    expect(before.find((r) => r._id === c3)?.parent_context_nodes).toEqual([c2]);

    expect((await h.call('POST', 'delete', token, { source: c2, by_id: true })).status).toBe(204);
    const after = (await h.call('GET', 'view', token)).json.context as Row[];
    const unlinked = (ids: string[]) => ids.filter((id) => id !== c2);
    expect(after).toEqual(
      before
        .filter((r) => r._id !== c2 && !r._id.startsWith(`${c2}.`))
        .map((r) => ({
          ...r,
          parent_context_nodes: unlinked(r.parent_context_nodes),
          children_context_nodes: unlinked(r.children_context_nodes),
        })),
    );
    expect(JSON.stringify(after)).not.toContain(c2);
    expect((await docsOf(token)).map((d) => d.fileName).sort()).toEqual(['c1', 'c3']);
  });

  it('needs a source and one of by_doc/by_id; deleting for another user needs context:admin', async () => {
    expect((await h.call('POST', 'delete', alice, {})).json.response).toContain('source');
    expect((await h.call('POST', 'delete', alice, { source: 'x', by_doc: false, by_id: false })).status).toBe(400);
    expect((await h.call('POST', 'delete', alice, { source: 'x', user_id: 'bob' })).status).toBe(403);
    const added = await h.call('POST', 'add', bob, {
      documents: [doc('bob org note', 'bobnote')],
      organization_id: 'acme',
    });
    const byId = { source: added.json.contextIds[0], by_id: true };
    expect((await h.call('POST', 'delete', alice, byId)).status).toBe(403);
    expect(
      (await h.call('POST', 'delete', admin, { source: 'bobnote', user_id: 'bob', organization_id: 'acme' })).status,
    ).toBe(204);
    expect((await docsOf(bob)).map((d) => d.fileName)).not.toContain('bobnote');
  });
});

describe('view', () => {
  it('pages with limit and an opaque cursor, filters by context_type, refuses a bad cursor', async () => {
    const token = await tokenFor('liam', { scope: ALL });
    await h.call('POST', 'add', token, { documents: [doc('one'), doc('two', 'b'), doc('three', 'c')] });
    await h.call('POST', 'add', token, { documents: [doc('an instruction', 'i')], context_type: 'instruction' });
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await h.call('GET', `view/docs?limit=1${cursor ? `&cursor=${cursor}` : ''}`, token);
      expect(page.json.documents.length).toBeLessThanOrEqual(1);
      seen.push(...page.json.documents.map((d: { fileName: string }) => d.fileName));
      cursor = page.json.nextCursor;
    } while (cursor);
    expect(seen.sort()).toEqual(['b', 'c', 'i', 'notes.txt']);
    const instructions = await docsOf(token, '?context_type=instruction');
    expect(instructions.map((d) => d.fileName)).toEqual(['i']);
    expect((await h.call('GET', 'view?cursor=garbage', token)).status).toBe(400);
    expect((await h.call('GET', 'view?limit=1001', token)).status).toBe(400);
  });

  /** Every page of a listing, to the one whose nextCursor is null. */
  async function pagesOf(token: string, route: string, query: string) {
    const pages: string[][] = [];
    let cursor: string | null = null;
    do {
      const page = await h.call('GET', `${route}?${query}${cursor ? `&cursor=${cursor}` : ''}`, token);
      expect(page.status).toBe(200);
      const entries: { fileName?: string; _id?: string }[] = page.json.documents ?? page.json.context;
      pages.push(entries.map((entry) => entry.fileName ?? (entry._id as string)));
      cursor = page.json.nextCursor;
    } while (cursor && pages.length < 20);
    return pages;
  }

  it('gives no nextCursor on a last page that is exactly full, so no client fetches an empty page', async () => {
    // mia's organization holds nothing: her own partition is the last with records.
    const token = await tokenFor('mia', { orgs: ['mia-empty-org'], scope: ALL });
    await h.call('POST', 'add', token, { documents: [doc('an instruction', 'i')], context_type: 'instruction' });
    await h.call('POST', 'add', token, { documents: [doc('one', 'a'), doc('two', 'b'), doc('three', 'c')] });
    expect(await pagesOf(token, 'view/docs', 'limit=4')).toHaveLength(1);
    expect((await pagesOf(token, 'view/docs', 'limit=2')).map((page) => page.length)).toEqual([2, 2]);
    // Four documents of one chunk each: eight records.
    expect((await pagesOf(token, 'view', 'limit=8')).map((page) => page.length)).toEqual([8]);
    expect((await pagesOf(token, 'view', 'limit=4')).map((page) => page.length)).toEqual([4, 4]);
    // A filter that leaves records out: the page still ends where the matching records end.
    const resources = await pagesOf(token, 'view/docs', 'limit=3&context_type=resource');
    expect(resources.map((page) => page.sort())).toEqual([['a', 'b', 'c']]);
    const oneByOne = await pagesOf(token, 'view/docs', 'limit=1&context_type=resource');
    expect(oneByOne.flat().sort()).toEqual(['a', 'b', 'c']);
    expect(oneByOne).toHaveLength(3);
  });
});
