import type { RecordStatus, TenantKey } from '@memgate/core';
import { expect, it } from 'vitest';
import { all, recordFor } from './context-record.ts';
import { fresh, type RepositoryFactory } from './context-repository-reads.ts';

/** Writes and transitions: conditional creates and deletes, status moves, generations, attempts. */
export function writeConformance(factory: RepositoryFactory) {
  it('transitions only from the allowed statuses, keeping indexed in step, and reports who moved', async () => {
    const repository = await factory();
    const pending = recordFor({ status: 'pending', indexed: false });
    const deleting = recordFor({ status: 'deleting', indexed: false });
    await repository.putMany([pending, deleting]);
    const moved = await repository.transition([pending._id, deleting._id, 'missing'], ['pending'], 'indexed');
    expect(moved).toEqual([pending._id]);
    expect(await repository.get(pending._id)).toMatchObject({ status: 'indexed', indexed: true });
    expect(await repository.get(deleting._id)).toMatchObject({ status: 'deleting' });
    expect(await repository.transition([pending._id], ['pending'], 'indexed')).toEqual([]);
  });

  it("an add's settle keeps the fingerprint it claimed with; any other move, or another fingerprint, loses it", async () => {
    const repository = await factory();
    const document = (fingerprint: string) =>
      recordFor({ kind: 'document', status: 'pending', indexed: false, fingerprint });
    const [kept, claimedAgain, plain] = [document('f1'), document('f2'), document('f3')];
    await repository.putMany([kept, claimedAgain, plain]);
    const settle = new Map([
      [kept._id, 'f1'],
      [claimedAgain._id, 'f1'],
    ]);
    const moved = await repository.transition([kept._id, claimedAgain._id], ['pending'], 'indexed', settle);
    expect(moved).toEqual([kept._id]);
    expect(await repository.get(kept._id)).toMatchObject({ status: 'indexed', fingerprint: 'f1' });
    expect(await repository.get(claimedAgain._id)).toMatchObject({ status: 'pending', fingerprint: 'f2' });
    expect(await repository.transition([plain._id], ['pending'], 'indexed')).toEqual([plain._id]);
    expect((await repository.get(plain._id))?.fingerprint).toBeUndefined();
    // A move to the same status only drops it (forgetFingerprints), both ways.
    await repository.transition([kept._id], ['indexed'], 'indexed');
    await repository.transition([claimedAgain._id], ['pending'], 'pending');
    const [settled, pending] = await repository.getMany([kept._id, claimedAgain._id]);
    expect(settled).toMatchObject({ status: 'indexed', indexed: true });
    expect(pending).toMatchObject({ status: 'pending', indexed: false });
    expect([settled?.fingerprint, pending?.fingerprint]).toEqual([undefined, undefined]);
  });

  it('two concurrent transitions of the same record: exactly one wins', async () => {
    const repository = await factory();
    const record = recordFor({ status: 'pending', indexed: false });
    await repository.putMany([record]);
    const [a, b] = await Promise.all([
      repository.transition([record._id], ['pending'], 'indexed'),
      repository.transition([record._id], ['pending'], 'deleting'),
    ]);
    expect(a.length + b.length).toBe(1);
  });

  it('lists unsettled records older than `before`, oldest first, and forgets them once indexed', async () => {
    const repository = await factory();
    const statuses: RecordStatus[] = ['pending', 'deleting', 'failed', 'indexed'];
    const records = statuses.map((status, i) =>
      recordFor({ status, indexed: status === 'indexed', updatedAt: `2020-01-0${i + 1}T00:00:00.000Z` }),
    );
    await repository.putMany(records);
    const ids = new Set(records.map((record) => record._id));
    const mine = async (before: string) =>
      (await all((cursor) => repository.listUnsettled({ before, limit: 2, cursor })))
        .filter((record) => ids.has(record._id))
        .map((record) => record.status);
    expect(await mine('2020-01-03T00:00:00.000Z')).toEqual(['pending', 'deleting']);
    // A failed record is off the list: the cleanup gave up on it and must not read it again on every run.
    expect(await mine('2020-02-01T00:00:00.000Z')).toEqual(['pending', 'deleting']);
    await repository.transition([records[0]?._id as string], ['pending'], 'indexed');
    expect(await mine('2020-02-01T00:00:00.000Z')).toEqual(['deleting']);
    // Leaving `failed` (a delete) puts it back on the list; becoming `failed` takes it off.
    await repository.transition([records[2]?._id as string], ['failed'], 'deleting');
    await repository.transition([records[1]?._id as string], ['deleting'], 'failed');
    expect(await mine('2099-01-01T00:00:00.000Z')).toEqual(['deleting']);
  });

  it('deletes only rows still in the given status, and reports which', async () => {
    const repository = await factory();
    const deleting = recordFor({ status: 'deleting', indexed: false });
    const readded = recordFor({ status: 'indexed' });
    await repository.putMany([deleting, readded]);
    const gone = await repository.deleteWhere([deleting._id, readded._id, 'missing'], 'deleting');
    expect(gone).toEqual([deleting._id]);
    expect(await repository.getMany([deleting._id, readded._id])).toEqual([readded]);
  });

  it('creates only records that do not exist yet, past one transaction, and reports the ones that did', async () => {
    const repository = await factory();
    const existing = recordFor({ kind: 'document', status: 'deleting', indexed: false });
    await repository.putMany([existing]);
    const fresh = Array.from({ length: 120 }, () => recordFor({ kind: 'document' }));
    const replacement = { ...existing, status: 'indexed' as const, indexed: true };
    expect(await repository.createMany([fresh[0] as typeof existing, replacement, ...fresh.slice(1)])).toEqual([
      existing._id,
    ]);
    expect(await repository.get(existing._id)).toEqual(existing);
    expect(await repository.getMany(fresh.map((record) => record._id))).toEqual(fresh);
    expect(await repository.createMany(fresh.slice(0, 3))).toEqual(fresh.slice(0, 3).map((record) => record._id));
  });

  it('deletes rows only while their updatedAt is the one read, and reports which', async () => {
    const repository = await factory();
    const stale = recordFor({ updatedAt: '2026-01-01T00:00:00.000Z' });
    const rewritten = recordFor({ updatedAt: '2026-01-01T00:00:00.000Z' });
    await repository.putMany([stale, { ...rewritten, updatedAt: '2026-01-02T00:00:00.000Z' }]);
    const gone = await repository.deleteUnchanged([stale, rewritten, { _id: 'missing', updatedAt: stale.updatedAt }]);
    expect(gone).toEqual([stale._id]);
    expect((await repository.getMany([stale._id, rewritten._id])).map((row) => row._id)).toEqual([rewritten._id]);
  });

  it("deletes a document's chunks only while the document is in the given status, past one transaction", async () => {
    const repository = await factory();
    const document = recordFor({ kind: 'document', status: 'deleting', indexed: false });
    const chunks = Array.from({ length: 120 }, () => recordFor({ document_id: document._id }));
    const ids = chunks.map((chunk) => chunk._id);
    await repository.putMany([document, ...chunks]);
    expect(await repository.deleteChildrenWhile(document._id, ids, 'deleting')).toBe(true);
    expect(await repository.getMany(ids)).toEqual([]);
    // Added again: the document left `deleting`, so its (new) chunks stay.
    await repository.putMany([{ ...document, status: 'indexed', indexed: true }, ...chunks]);
    expect(await repository.deleteChildrenWhile(document._id, ids, 'deleting')).toBe(false);
    expect(await repository.getMany(ids)).toHaveLength(120);
    expect(await repository.deleteChildrenWhile('missing', ids, 'deleting')).toBe(false);
  });

  it('keeps a visibility generation tag per tenant: none until created, changed by every bump, concurrent ones too', async () => {
    const repository = await factory();
    const [a, b, c] = [`user:${fresh()}`, `org:${fresh()}`, `org:${fresh()}`] as const satisfies TenantKey[];
    // No row, no tag: nothing can be vouched for by a generation that was never written.
    expect(await repository.readGenerations([a, b])).toEqual(new Map());
    // Creating is idempotent and atomic: concurrent ensures agree, and a read gives the same tag.
    const [first, second] = await Promise.all([
      repository.ensureGenerations([a]),
      repository.ensureGenerations([a, b]),
    ]);
    const tagA = first.get(a) as string;
    expect(typeof tagA).toBe('string');
    expect(second.get(a)).toBe(tagA);
    expect(await repository.readGenerations([a, b, c])).toEqual(
      new Map([
        [a, tagA],
        [b, second.get(b)],
      ]),
    );
    // One tenant (a single read, where several are a batch) gives the same: its tag, or none without a row.
    expect(await repository.readGenerations([b, b])).toEqual(new Map([[b, second.get(b)]]));
    expect(await repository.readGenerations([c])).toEqual(new Map());
    expect((await repository.ensureGenerations([a])).get(a)).toBe(tagA);
    // Every bump gives a new tag, never an earlier one; a bump of a tenant with no row creates it.
    const seen = new Set([tagA]);
    await repository.bumpGenerations([a]);
    const afterOne = (await repository.readGenerations([a])).get(a) as string;
    expect(seen.has(afterOne)).toBe(false);
    seen.add(afterOne);
    await Promise.all([repository.bumpGenerations([b, a, a]), repository.bumpGenerations([c])]);
    const afterTwo = await repository.readGenerations([c, b, a]);
    expect([...afterTwo.keys()].sort()).toEqual([a, b, c].sort());
    expect(seen.has(afterTwo.get(a) as string)).toBe(false);
    expect(afterTwo.get(b)).not.toBe(second.get(b));
    expect(await repository.readGenerations([c])).toEqual(new Map([[c, afterTwo.get(c)]]));
    // Rows and tags in one read: the same records getMany gives, and the same tags.
    const chunk = recordFor({ tenant: a, text: 'the chunk' });
    await repository.putMany([chunk]);
    const both = await repository.getManyWithGenerations([chunk._id, 'missing', chunk._id], [a, `user:${fresh()}`]);
    expect(both.records).toEqual(await repository.getMany([chunk._id]));
    expect(both.generations).toEqual(new Map([[a, afterTwo.get(a)]]));
    expect((await repository.getManyWithGenerations([], [b])).generations).toEqual(new Map([[b, afterTwo.get(b)]]));
    await repository.deleteMany([chunk._id]);
    // A generation is not a record: no listing shows it.
    expect((await repository.listByTenant(a, { limit: 10 })).items).toEqual([]);
    expect((await repository.listUnsettled({ before: '9999', limit: 1000 })).items).not.toContainEqual(
      expect.objectContaining({ tenant: a }),
    );
  });

  it("unlists one child of an indexed document, never a document's list being replaced, and concurrent unlists all land", async () => {
    const repository = await factory();
    const children = Array.from({ length: 6 }, (_, i) => `doc-u.${String(i).padStart(5, '0')}`);
    const document = recordFor({ kind: 'document', children_context_nodes: children, fingerprint: 'fp' });
    const pending = recordFor({ kind: 'document', children_context_nodes: ['x.1', 'x.2'], status: 'pending' });
    await repository.putMany([document, pending]);
    expect(await repository.unlistChild(document._id, children[1] as string)).toBe(true);
    const [once] = await repository.getMany([document._id]);
    expect(once?.children_context_nodes).toEqual(children.filter((_, i) => i !== 1));
    expect(once?.fingerprint).toBeUndefined();
    expect(once?.status).toBe('indexed');
    // Already gone, an absent document, a document not indexed: nothing changes.
    expect(await repository.unlistChild(document._id, children[1] as string)).toBe(false);
    expect(await repository.unlistChild(`rec-${fresh()}`, 'x.1')).toBe(false);
    expect(await repository.unlistChild(pending._id, 'x.1')).toBe(false);
    expect((await repository.getMany([pending._id]))[0]?.children_context_nodes).toEqual(['x.1', 'x.2']);
    // Each unlist shifts the entries after it: the others still find theirs.
    const results = await Promise.all(
      [0, 2, 3, 5].map((i) => repository.unlistChild(document._id, children[i] as string)),
    );
    expect(results).toEqual([true, true, true, true]);
    expect((await repository.getMany([document._id]))[0]?.children_context_nodes).toEqual([children[4]]);
  });

  it('counts attempts per record; a missing record counts 0', async () => {
    const repository = await factory();
    const record = recordFor({ status: 'pending', indexed: false });
    await repository.putMany([record]);
    expect(await repository.countAttempt(record._id)).toBe(1);
    expect(await repository.countAttempt(record._id)).toBe(2);
    expect(await repository.countAttempt('missing')).toBe(0);
  });
}
