import { randomUUID } from 'node:crypto';
import type { ContextRecord, ContextRepository, TenantKey } from '@memgate/core';
import { expect, it } from 'vitest';
import { all, recordFor } from './context-record.ts';

/** A ContextRepository factory; each test uses fresh tenants and owners. */
export type RepositoryFactory = () => ContextRepository | Promise<ContextRepository>;

export const fresh = () => randomUUID().slice(0, 8);

/** Reads and listings: records back as written, pages, cursors, tenants kept apart. */
export function readConformance(factory: RepositoryFactory) {
  it('puts and reads back records exactly, in the asked order; missing ids are absent', async () => {
    const repository = await factory();
    const a = recordFor({
      kind: 'document',
      content: { chunks: 1 },
      text: '',
      metadata: { size: 1, file_name: 'x', doc_type: 'd', modalities: ['text'], extra: 'kept' },
    });
    const b = recordFor({ organization_id: 'org-1', tenant: 'org:org-1', blob: { any: [1, 2] } });
    await repository.putMany([a, b]);
    expect(await repository.getMany([b._id, 'missing', a._id])).toEqual([b, a]);
    expect(await repository.get(a._id)).toEqual(a);
    expect(await repository.get('missing')).toBeUndefined();
  });

  it('reads the fields search needs, current as of the last transition; missing ids are absent', async () => {
    const repository = await factory();
    const document = recordFor({ kind: 'document', text: '', status: 'pending', children_context_nodes: ['c'] });
    const chunk = recordFor({ document_id: document._id, text: 'the chunk', source: 'wiki' });
    await repository.putMany([document, chunk]);
    await repository.transition([document._id], ['pending'], 'indexed');
    const read = await repository.getForSearch([chunk._id, 'missing', document._id]);
    const byId = new Map(read.map((record) => [record._id, record]));
    expect(read).toHaveLength(2);
    expect(byId.get(chunk._id)).toEqual({
      _id: chunk._id,
      kind: 'chunk',
      status: 'indexed',
      tenant: chunk.tenant,
      document_id: document._id,
      children_context_nodes: [],
      text: 'the chunk',
      source: 'wiki',
      metadata: { file_name: 'f.txt' },
    });
    expect(byId.get(document._id)).toMatchObject({ status: 'indexed', children_context_nodes: ['c'] });
  });

  it('writes and reads more than one batch (25 writes, 100 reads)', async () => {
    const repository = await factory();
    const records = Array.from({ length: 230 }, () => recordFor());
    await repository.putMany(records);
    const read = await repository.getMany(records.map((record) => record._id));
    expect(read.map((record) => record._id)).toEqual(records.map((record) => record._id));
    await repository.deleteMany(records.map((record) => record._id));
    expect(await repository.getMany(records.map((record) => record._id))).toEqual([]);
  });

  it('lists a tenant newest first across pages, documents only when asked', async () => {
    const repository = await factory();
    const tenant: TenantKey = `user:${fresh()}`;
    const records = Array.from({ length: 7 }, (_, i) =>
      recordFor({ tenant, kind: i % 2 === 0 ? 'document' : 'chunk', createdAt: `2026-01-0${i + 1}T00:00:00.000Z` }),
    );
    await repository.putMany(records);
    const listed = await all((cursor) => repository.listByTenant(tenant, { limit: 3, cursor }));
    expect(listed.map((record) => record._id)).toEqual([...records].reverse().map((record) => record._id));
    const documents = await all((cursor) => repository.listByTenant(tenant, { limit: 2, cursor, documentsOnly: true }));
    expect(documents.map((record) => record.kind)).toEqual(['document', 'document', 'document', 'document']);
  });

  it('resumes a tenant listing right after any record of a page, with a cursor bound to that listing', async () => {
    const repository = await factory();
    const [tenant, other] = [`user:${fresh()}`, `user:${fresh()}`] as const;
    const records = Array.from({ length: 5 }, (_, i) =>
      recordFor({ tenant, kind: 'document', createdAt: `2026-02-0${i + 1}T00:00:00.000Z` }),
    );
    await repository.putMany(records);
    const newestFirst = [...records].reverse().map((record) => record._id);
    const page = await repository.listByTenant(tenant, { limit: 4 });
    for (const index of [0, 2, 3]) {
      const rest = await repository.listByTenant(tenant, { limit: 10, cursor: page.cursorAfter(index) });
      expect(rest.items.map((record) => record._id)).toEqual(newestFirst.slice(index + 1));
    }
    const documents = await repository.listByTenant(tenant, { limit: 2, documentsOnly: true });
    const after = await repository.listByTenant(tenant, {
      limit: 10,
      documentsOnly: true,
      cursor: documents.cursorAfter(0),
    });
    expect(after.items.map((record) => record._id)).toEqual(newestFirst.slice(1));
    await expect(repository.listByTenant(other, { limit: 1, cursor: page.cursorAfter(0) })).rejects.toMatchObject({
      kind: 'validation',
      field: 'cursor',
    });
  });

  it("lists a tenant's documents by their names only, newest first across pages, with the cursor bound to it", async () => {
    const repository = await factory();
    const [tenant, other] = [`org:${fresh()}`, `org:${fresh()}`] as const;
    const documents = Array.from({ length: 5 }, (_, i) =>
      recordFor({
        tenant,
        kind: 'document',
        user_id: `owner-${i % 2}`,
        status: i === 0 ? 'deleting' : 'indexed',
        source: `source-${i}`,
        metadata: { size: 1, file_name: `file-${i}.txt`, doc_type: 'text/plain', modalities: ['text'], team: 'x' },
        children_context_nodes: [`chunk-${i}`],
        createdAt: `2026-01-0${i + 1}T00:00:00.000Z`,
      }),
    );
    await repository.putMany([
      ...documents,
      recordFor({ tenant, kind: 'chunk', createdAt: '2026-01-09T00:00:00.000Z' }),
      recordFor({ tenant: other, kind: 'document' }),
    ]);
    const pages: string[] = [];
    const listed: unknown[] = [];
    let cursor: string | undefined;
    do {
      const page = await repository.listDocumentNames(tenant, { limit: 2, ...(cursor ? { cursor } : {}) });
      listed.push(...page.items);
      cursor = page.nextCursor ?? undefined;
      if (cursor) pages.push(cursor);
    } while (cursor);
    expect(listed).toEqual(
      [...documents].reverse().map(({ _id, user_id, status, source, metadata }) => ({
        _id,
        user_id,
        status,
        tenant,
        source,
        metadata: { file_name: metadata.file_name },
      })),
    );
    const refused = { kind: 'validation', field: 'cursor' };
    await expect(repository.listDocumentNames(other, { limit: 2, cursor: pages[0] })).rejects.toMatchObject(refused);
  });

  it("finds a tenant's documents by source or file name, whatever their status, and nothing of another tenant", async () => {
    const repository = await factory();
    const [tenant, other] = [`org:${fresh()}`, `org:${fresh()}`] as const;
    const named = (source: string, fileName: string, overrides: Partial<ContextRecord> = {}) =>
      recordFor({
        tenant,
        kind: 'document',
        source,
        metadata: { size: 1, file_name: fileName, doc_type: 'text/plain', modalities: ['text'] },
        ...overrides,
      });
    const bySource = named('shared', 'one.txt');
    const byFileName = named('elsewhere', 'shared', { status: 'deleting', user_id: 'user-2' });
    const long = 'x'.repeat(3000); // longer than a key may be: names are hashed into the index's keys
    const longNamed = named(long, 'three.txt');
    await repository.putMany([
      bySource,
      byFileName,
      longNamed,
      named('shared-not', 'shared.txt'),
      recordFor({ tenant, kind: 'chunk', source: 'shared' }),
      recordFor({ tenant: other, kind: 'document', source: 'shared' }),
    ]);
    const ids = async (name: string, of: TenantKey = tenant) =>
      (await repository.findDocumentsNamed(of, name))?.map((document) => document._id).sort();
    expect(await ids('shared')).toEqual([bySource._id, byFileName._id].sort());
    expect(await repository.findDocumentsNamed(tenant, 'shared')).toContainEqual({
      _id: byFileName._id,
      user_id: 'user-2',
      status: 'deleting',
      tenant,
      source: 'elsewhere',
      metadata: { file_name: 'shared' },
    });
    expect(await ids(long)).toEqual([longNamed._id]);
    expect(await ids('nothing')).toEqual([]);
    expect(await ids('shared', `org:${fresh()}`)).toEqual([]);
  });

  it('lists an owner across tenants', async () => {
    const repository = await factory();
    const owner = fresh();
    await repository.putMany([
      recordFor({ user_id: owner, tenant: `user:${owner}` }),
      recordFor({ user_id: owner, tenant: 'org:shared', kind: 'document' }),
      recordFor({ user_id: 'someone-else', tenant: `user:${owner}` }),
    ]);
    expect(await all((cursor) => repository.listByOwner(owner, { limit: 1, cursor }))).toHaveLength(2);
    expect(
      await all((cursor) => repository.listByOwner(owner, { limit: 1, cursor, documentsOnly: true })),
    ).toHaveLength(1);
  });

  it('refuses a cursor it did not issue, or one of another listing, as a validation error naming the cursor', async () => {
    const repository = await factory();
    const [a, b, owner] = [`user:${fresh()}`, `org:${fresh()}`, fresh()] as const;
    await repository.putMany(
      [a, b].flatMap((tenant) =>
        Array.from({ length: 3 }, (_, i) =>
          recordFor({ tenant, user_id: owner, kind: 'document', createdAt: `2026-01-0${i + 1}T00:00:00.000Z` }),
        ),
      ),
    );
    const cursor = (await repository.listByTenant(a, { limit: 1 })).nextCursor as string;
    const refused = { kind: 'validation', field: 'cursor' };
    await expect(repository.listByTenant(a, { limit: 1, cursor })).resolves.toMatchObject({ items: [{ tenant: a }] });
    await expect(repository.listByTenant(b, { limit: 1, cursor })).rejects.toMatchObject(refused);
    await expect(repository.listByTenant(a, { limit: 1, cursor, documentsOnly: true })).rejects.toMatchObject(refused);
    await expect(repository.listByOwner(owner, { limit: 1, cursor })).rejects.toMatchObject(refused);
    await expect(repository.listByTenant(a, { limit: 1, cursor: 'not-a-cursor' })).rejects.toMatchObject(refused);
    const ownerCursor = (await repository.listByOwner(owner, { limit: 1 })).nextCursor as string;
    await expect(repository.listByOwner(fresh(), { limit: 1, cursor: ownerCursor })).rejects.toMatchObject(refused);
  });
}
