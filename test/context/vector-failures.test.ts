import { beforeAll, describe, expect, it } from 'vitest';
import { createFailingContextHarness } from '../support/context-app.ts';
import { tokenFor } from '../support/tokens.ts';

// The context API over HTTP with a vector store that fails on demand (DESIGN.md section 3: nothing half-visible,
// nothing acknowledged lost); the cleanup finishes what a failure left.
const ALL = 'context:read context:write context:delete';
const band = { similarity_threshold: 1, minimum_similarity_threshold: 0 };

let h: Awaited<ReturnType<typeof createFailingContextHarness>>['h'];
let failing: Awaited<ReturnType<typeof createFailingContextHarness>>['failing'];

beforeAll(async () => {
  ({ h, failing } = await createFailingContextHarness());
});

const doc = (content: string, fileName: string) => ({ content, fileName, fileType: 'text/plain' });

describe('consistency under vector-store failures', () => {
  it('a failing upsert answers 500 and leaves nothing visible; the cleanup removes what it wrote, a retry is whole', async () => {
    const token = await tokenFor('mona', { scope: ALL });
    const add = () => h.call('POST', 'add', token, { documents: [doc('walrus tusks are teeth', 'walrus')] });
    failing.upsert = true;
    const failed = await add();
    failing.upsert = false;
    expect(failed.status).toBe(500);
    expect(failed.json).toMatchObject({ error: 'internal_error', response: expect.stringContaining('vector store') });
    expect((await h.call('GET', 'view', token)).json.context).toEqual([]);
    expect((await h.call('POST', 'search', token, { query: 'walrus', ...band })).json.results).toEqual([]);
    await h.cleanup();
    expect((await h.call('POST', 'search', token, { query: 'walrus tusks', ...band })).json.results).toEqual([]);
    expect((await add()).status).toBe(201);
    const found = await h.call('POST', 'search', token, { query: 'walrus tusks', ...band });
    expect(found.json.results.map((r: { fileName: string }) => r.fileName)).toEqual(['walrus']);
  });

  it('a re-add whose upsert fails answers 500 and hides the document; the cleanup indexes it again', async () => {
    const token = await tokenFor('moana', { scope: ALL });
    const add = (tags?: string[]) =>
      h.call('POST', 'add', token, { documents: [doc('narwhal tusks are teeth', 'narwhal')], tags });
    expect((await add()).status).toBe(201);
    failing.upsert = true;
    // A re-add that changes the document (its tags): an identical one writes nothing.
    expect((await add(['arctic'])).status).toBe(500);
    failing.upsert = false;
    expect((await h.call('POST', 'search', token, { query: 'narwhal', ...band })).json.results).toEqual([]);
    await h.cleanup();
    const found = await h.call('POST', 'search', token, { query: 'narwhal tusks', ...band });
    expect(found.json.results.map((r: { fileName: string }) => r.fileName)).toEqual(['narwhal']);
  });

  it('a failing vector delete still answers 204 and hides everything; the cleanup removes the rows', async () => {
    const token = await tokenFor('nina', { scope: ALL });
    const added = await h.call('POST', 'add', token, { documents: [doc('otters hold hands', 'otters')] });
    failing.delete = true;
    const deleted = await h.call('POST', 'delete', token, { source: 'otters' });
    failing.delete = false;
    expect(deleted.status).toBe(204);
    expect((await h.call('GET', 'view', token)).json.context).toEqual([]);
    expect((await h.call('POST', 'search', token, { query: 'otters', ...band })).json.results).toEqual([]);
    expect(await h.repository.get(added.json.contextIds[0])).toMatchObject({ status: 'deleting' });
    await h.cleanup();
    expect(await h.repository.get(added.json.contextIds[0])).toBeUndefined();
  });

  it('a failing vector query answers 500 without writing anything', async () => {
    const token = await tokenFor('olga', { scope: ALL });
    expect((await h.call('POST', 'add', token, { documents: [doc('seals sleep in water', 'seals')] })).status).toBe(
      201,
    );
    failing.query = true;
    const { status } = await h.call('POST', 'search', token, { query: 'anything', ...band });
    failing.query = false;
    expect(status).toBe(500);
  });
});
