import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import type { ContextRecord, ContextRepository, TenantKey } from '@memgate/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { createContextHarness } from '../support/context-app.ts';
import { createMemoryIndex } from '../support/memory-ports.ts';
import { tokenFor } from '../support/tokens.ts';

// Delete by document in a tenant with many documents, over DynamoDB Local: it finds the named documents through the
// indexes by name, or through the tenant's slim documents listing while those cannot answer (no backfill marker),
// and must delete exactly those (by source or by file name, the caller's own unless acting for another user), with
// their chunks, in personal and organization tenants.
const ALL = 'context:read context:write context:delete';
const band = { similarity_threshold: 1, minimum_similarity_threshold: 0 };

let h: Awaited<ReturnType<typeof createContextHarness>>;

const doc = (content: string, fileName: string) => ({ content, fileName, fileType: 'text/plain' });

/** Every visible record of a tenant, read from the table (not the API's pages of 100). */
async function visibleIn(repository: ContextRepository, tenant: TenantKey): Promise<ContextRecord[]> {
  const records: ContextRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await repository.listByTenant(tenant, { limit: 500, ...(cursor ? { cursor } : {}) });
    records.push(...page.items.filter((record) => record.status === 'indexed'));
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return records;
}

const fileNames = (records: ContextRecord[]) =>
  records
    .filter((record) => record.kind === 'document')
    .map((record) => `${record.user_id}/${record.source}/${record.metadata.file_name}`)
    .sort();

/** Adds `count` documents in batches of 10, each request under one source, file names `<prefix>-<n>.txt`. */
async function addMany(token: string, count: number, source: (batch: number) => string, extra = {}) {
  for (let batch = 0; batch * 10 < count; batch++) {
    const documents = Array.from({ length: Math.min(10, count - batch * 10) }, (_, i) =>
      doc(`note ${batch}-${i} about tern colonies`, `note-${batch * 10 + i}.txt`),
    );
    const added = await h.call('POST', 'add', token, { documents, source: source(batch), ...extra });
    expect(added.status).toBe(201);
  }
}

describe.each([
  ['through the indexes by name', true],
  ['through the slim listing, before the names backfill', false],
])('delete by document in a tenant with many documents, %s', (_, namesIndexed) => {
  beforeAll(async () => {
    h = await createContextHarness(createMemoryIndex().index);
    if (namesIndexed) return;
    const { documentClient, tableName } = h.table;
    const marker = { pk: 'ctx#document-names', sk: 'backfill' }; // ensureTable wrote it (document-names.ts)
    await documentClient.send(new DeleteCommand({ TableName: tableName, Key: marker }));
  });

  it('deletes exactly the documents whose source or file name is named, with their chunks', async () => {
    const token = await tokenFor('wren', { scope: ALL });
    await addMany(token, 120, (batch) => `batch-${batch % 4}`);
    const before = await visibleIn(h.repository, 'user:wren');
    expect(fileNames(before)).toHaveLength(120);

    // By source: batches 1, 5 and 9 (30 documents), wherever they sit in the tenant's listing.
    expect((await h.call('POST', 'delete', token, { source: 'batch-1' })).status).toBe(204);
    let left = await visibleIn(h.repository, 'user:wren');
    expect(fileNames(left)).toEqual(fileNames(before.filter((record) => record.source !== 'batch-1')));
    expect(left.filter((record) => record.kind === 'chunk' && record.source === 'batch-1')).toEqual([]);

    // By file name: one document, the oldest.
    expect((await h.call('POST', 'delete', token, { source: 'note-0.txt' })).status).toBe(204);
    left = await visibleIn(h.repository, 'user:wren');
    expect(fileNames(left)).toEqual(
      fileNames(before.filter((record) => record.source !== 'batch-1' && record.metadata.file_name !== 'note-0.txt')),
    );
    const found = await h.call('POST', 'search', token, { query: 'note 0-0 about tern colonies', top_k: 100, ...band });
    expect(found.json.results.map((hit: { fileName: string }) => hit.fileName)).not.toContain('note-0.txt');

    // A name no document has deletes nothing.
    expect((await h.call('POST', 'delete', token, { source: 'note-999.txt' })).status).toBe(204);
    expect(fileNames(await visibleIn(h.repository, 'user:wren'))).toEqual(fileNames(left));
  });

  it("in an organization, deletes the caller's named documents only; an admin acting for another user deletes theirs", async () => {
    const [ada, bo] = [
      await tokenFor('ada', { orgs: ['gull'], scope: ALL }),
      await tokenFor('bo', { orgs: ['gull'], scope: ALL }),
    ];
    const admin = await tokenFor('cy', { orgs: ['gull'], scope: `${ALL} context:admin` });
    const org = { organization_id: 'gull' };
    await addMany(ada, 40, () => 'shared', org);
    await addMany(bo, 40, () => 'shared', org);
    await addMany(ada, 10, () => 'shared'); // ada's personal tenant, same names
    const before = await visibleIn(h.repository, 'org:gull');
    expect(fileNames(before)).toHaveLength(80);

    // Without organization_id the delete covers every tenant ada sees: her personal documents and hers in the org.
    const named = (r: ContextRecord) => r.metadata.file_name === 'note-3.txt';
    expect((await h.call('POST', 'delete', ada, { source: 'note-3.txt' })).status).toBe(204);
    let left = await visibleIn(h.repository, 'org:gull');
    expect(fileNames(left)).toEqual(fileNames(before.filter((r) => !(r.user_id === 'ada' && named(r)))));
    expect(fileNames(before.filter(named))).toEqual(['ada/shared/note-3.txt', 'bo/shared/note-3.txt']);
    expect(fileNames(left.filter(named))).toEqual(['bo/shared/note-3.txt']);
    expect(fileNames((await visibleIn(h.repository, 'user:ada')).filter(named))).toEqual([]);

    // organization_id null narrows to personal documents, as on add: ada's in the organization stay.
    const inOrg = (await visibleIn(h.repository, 'org:gull')).filter((r) => r.metadata.file_name === 'note-4.txt');
    expect(fileNames(inOrg)).toEqual(['ada/shared/note-4.txt', 'bo/shared/note-4.txt']);
    expect((await h.call('POST', 'delete', ada, { source: 'note-4.txt', organization_id: null })).status).toBe(204);
    expect(
      fileNames((await visibleIn(h.repository, 'user:ada')).filter((r) => r.metadata.file_name === 'note-4.txt')),
    ).toEqual([]);
    expect(
      fileNames((await visibleIn(h.repository, 'org:gull')).filter((r) => r.metadata.file_name === 'note-4.txt')),
    ).toEqual(fileNames(inOrg));
    // An admin acting for another user reaches no personal records of theirs, with null or without.
    await addMany(bo, 10, () => 'bo-own');
    expect(
      (await h.call('POST', 'delete', admin, { source: 'bo-own', user_id: 'bo', organization_id: null })).status,
    ).toBe(204);
    expect(fileNames(await visibleIn(h.repository, 'user:bo'))).toHaveLength(10);

    // Narrowed to the organization: ada's personal documents stay.
    expect((await h.call('POST', 'delete', ada, { source: 'shared', ...org })).status).toBe(204);
    left = await visibleIn(h.repository, 'org:gull');
    expect(new Set(left.map((record) => record.user_id))).toEqual(new Set(['bo']));
    expect(fileNames(await visibleIn(h.repository, 'user:ada'))).toHaveLength(8);

    // Bo's documents: only through an admin acting for bo.
    expect((await h.call('POST', 'delete', admin, { source: 'shared', ...org })).status).toBe(204);
    expect(fileNames(await visibleIn(h.repository, 'org:gull'))).toHaveLength(40);
    expect((await h.call('POST', 'delete', admin, { source: 'shared', user_id: 'bo', ...org })).status).toBe(204);
    expect(await visibleIn(h.repository, 'org:gull')).toEqual([]);
  });
});
