import { beforeEach, describe, expect, it } from 'vitest';
import {
  createMemoryIndex,
  createMemoryRepository,
  createMemorySessions,
} from '../../../../test/support/memory-ports.ts';
import type { TenantKey } from '../auth/index.ts';
import type { Embedder } from '../context/ports.ts';
import type { ContextRecord, RecordStatus } from '../context/record.ts';
import { runCleanup } from './index.ts';
import { vectorItemOf } from './vectors.ts';

const T0 = Date.parse('2026-01-01T00:00:00Z');
const TENANT: TenantKey = 'user:alice';

/** A clock that moves forward by `step` ms at every reading, so deadlines can be reached deterministically. */
function steppingClock(start: number, step = 0) {
  let now = start;
  return {
    now: () => {
      const at = new Date(now);
      now += step;
      return at;
    },
    set: (ms: number) => {
      now = ms;
    },
  };
}

const embedded: string[] = [];
const embedder: Embedder = {
  id: 'test:2',
  dimension: 2,
  async embed(texts) {
    embedded.push(...texts);
    return texts.map((text) => new Float32Array([text.length, 1]));
  },
};

function record(id: string, fields: Partial<ContextRecord> & { status: RecordStatus }): ContextRecord {
  const at = new Date(T0).toISOString();
  return {
    _id: id,
    kind: 'chunk',
    user_id: 'alice',
    organization_id: null,
    parent_context_nodes: ['doc-1'],
    children_context_nodes: [],
    context_type: 'resource',
    tags: [],
    source: 'notes',
    content: '',
    blob: null,
    indexed: fields.status === 'indexed',
    indexable: true,
    governing_policies: null,
    override_policy: false,
    telemetry_data: {},
    createdAt: at,
    updatedAt: at,
    scopes: ['internal'],
    metadata: { size: 10, file_name: 'notes.md', doc_type: 'text/markdown', modalities: ['text'] },
    corresponding_vector_id: id,
    text: `text of ${id}`,
    tenant: TENANT,
    document_id: 'doc-1',
    attempts: 0,
    ...fields,
  };
}

const vector = (r: ContextRecord) => vectorItemOf(r, new Float32Array([1, 0]));

/** The indexed document row 'doc-1' that lists `chunks` (a chunk shows through its document). */
const documentOf = (chunks: readonly ContextRecord[], fields: Partial<ContextRecord> = {}) =>
  record('doc-1', {
    status: 'indexed',
    kind: 'document',
    parent_context_nodes: [],
    children_context_nodes: chunks.map((chunk) => chunk._id),
    corresponding_vector_id: '',
    ...fields,
  });

let clock: ReturnType<typeof steppingClock>;
let repo: ReturnType<typeof createMemoryRepository>;
let vectors: ReturnType<typeof createMemoryIndex>;
let sessions: ReturnType<typeof createMemorySessions>;

beforeEach(() => {
  embedded.length = 0;
  clock = steppingClock(T0 + 10 * 60_000);
  repo = createMemoryRepository(clock);
  vectors = createMemoryIndex();
  sessions = createMemorySessions();
});

const run = (deadlineMs = T0 + 60 * 60_000, extra: { maxAttempts?: number; pageSize?: number } = {}) =>
  runCleanup({
    repository: repo.repository,
    index: vectors.index,
    embedder,
    sessions: sessions.sessions,
    clock,
    deadline: new Date(deadlineMs),
    ...extra,
  });

describe('runCleanup', () => {
  it('re-indexes a pending document: every chunk gets its vector, then the document shows', async () => {
    // The store writes chunks with the document's fate: they show once their document is indexed.
    const doc = record('doc-1', {
      kind: 'document',
      status: 'pending',
      children_context_nodes: ['c1', 'c2'],
      text: '',
    });
    await repo.repository.putMany([doc, record('c1', { status: 'indexed' }), record('c2', { status: 'pending' })]);
    const report = await run();
    expect(report).toMatchObject({ reindexed: 1, failed: 0, complete: true });
    expect(vectors.idsIn(TENANT)).toEqual(['c1', 'c2']);
    expect(vectors.namespaces.get(TENANT)?.get('c1')?.metadata).toMatchObject({
      documentId: 'doc-1',
      fileName: 'notes.md',
    });
    expect(embedded.sort()).toEqual(['text of c1', 'text of c2']);
    expect(repo.rows.get('c2')).toMatchObject({ status: 'indexed', indexed: true });
    expect(repo.rows.get('doc-1')).toMatchObject({ status: 'indexed', indexed: true });
  });

  it('settles a pending chunk whose vector was written before the add failed', async () => {
    const chunk = record('c1', { status: 'pending' });
    await repo.repository.putMany([chunk]);
    await vectors.index.upsert(TENANT, [vector(chunk)]);
    expect(await run()).toMatchObject({ reindexed: 1, orphanVectors: 0 });
    expect(vectors.idsIn(TENANT)).toEqual(['c1']);
    expect(repo.rows.get('c1')?.status).toBe('indexed');
  });

  it('leaves a pending record alone while its own add may still be running', async () => {
    const fresh = new Date(T0 + 9 * 60_000).toISOString();
    await repo.repository.putMany([record('c1', { status: 'pending', updatedAt: fresh })]);
    expect(await run()).toMatchObject({ reindexed: 0 });
    expect(repo.rows.get('c1')?.status).toBe('pending');
  });

  it('marks a record failed after the last allowed attempt, and keeps retrying until then', async () => {
    const failing: Embedder = { ...embedder, embed: () => Promise.reject(new Error('embedder down')) };
    await repo.repository.putMany([record('c1', { status: 'pending' })]);
    const once = () =>
      runCleanup({
        repository: repo.repository,
        index: vectors.index,
        embedder: failing,
        clock,
        deadline: new Date(T0 * 2),
        maxAttempts: 2,
      });
    expect(await once()).toMatchObject({ reindexed: 0, failed: 0 });
    expect(await once()).toMatchObject({ failed: 0 });
    expect(repo.rows.get('c1')?.status).toBe('pending');
    expect(await once()).toMatchObject({ failed: 1 });
    expect(repo.rows.get('c1')).toMatchObject({ status: 'failed', indexed: false });
  });

  it('finishes a deletion: vectors first, then rows, chunks of a deleted document included', async () => {
    // A document's chunks are `<documentId>.<position>` (ids.ts): that is how a removal tells them from chained documents.
    const doc = record('doc-1', {
      kind: 'document',
      status: 'deleting',
      children_context_nodes: ['doc-1.00000', 'doc-1.00001'],
    });
    const c1 = record('doc-1.00000', { status: 'deleting' });
    const c2 = record('doc-1.00001', { status: 'indexed' });
    await repo.repository.putMany([doc, c1, c2]);
    await vectors.index.upsert(TENANT, [vector(c1), vector(c2)]);
    expect(await run()).toMatchObject({ deletedRecords: 3, complete: true });
    expect(vectors.idsIn(TENANT)).toEqual([]);
    expect([...repo.rows.keys()]).toEqual([]);
  });

  it('deletes vectors that have no record, and only those', async () => {
    const kept = record('c1', { status: 'indexed' });
    await repo.repository.putMany([kept, documentOf([kept])]);
    const orphan = { ...vector(kept), id: 'gone' };
    await vectors.index.upsert(TENANT, [vector(kept), orphan]);
    await vectors.index.upsert('org:acme', [{ ...orphan, id: 'c1' }]); // same id, wrong tenant
    expect(await run()).toMatchObject({ orphanVectors: 2 });
    expect(vectors.idsIn(TENANT)).toEqual(['c1']);
    expect(vectors.idsIn('org:acme')).toEqual([]);
  });

  it('removes the chunk rows and vectors of an add that stopped before its document row, once they are stale', async () => {
    // The clock reads T0 + 10 min; staleness is 5 min: c-old was written at T0, c-young a minute ago.
    const abandoned = record('c-old', { status: 'indexed', document_id: 'doc-never' });
    const young = new Date(T0 + 9 * 60_000).toISOString();
    const running = record('c-young', { status: 'indexed', document_id: 'doc-running', updatedAt: young });
    const whole = record('c-whole', { status: 'indexed' });
    await repo.repository.putMany([abandoned, running, whole, documentOf([whole])]);
    await vectors.index.upsert(TENANT, [abandoned, running, whole].map(vector));
    expect(await run()).toMatchObject({ orphanVectors: 1 });
    expect(vectors.idsIn(TENANT).sort()).toEqual(['c-whole', 'c-young']);
    expect([...repo.rows.keys()].sort()).toEqual(['c-whole', 'c-young', 'doc-1']);
  });

  it('gives an abandoned chunk its vector back when its add is retried while the sweep removes it', async () => {
    const chunk = record('c-retried', { status: 'indexed', document_id: 'doc-retried' });
    await repo.repository.putMany([chunk]);
    await vectors.index.upsert(TENANT, [vector(chunk)]);
    // The retry writes the chunk row again just as the sweep deletes the vector, then its vector, then the document.
    const remove = vectors.index.delete;
    vectors.index.delete = async (namespace, ids) => {
      await repo.repository.putMany([{ ...chunk, updatedAt: new Date(T0 + 10 * 60_000).toISOString() }]);
      await remove(namespace, ids);
    };
    await run();
    expect(vectors.idsIn(TENANT)).toEqual(['c-retried']);
    expect(repo.rows.get('c-retried')?.status).toBe('indexed');
  });

  it('deletes expired sessions and replays and keeps live ones', async () => {
    sessions.expiries.set('session-old', new Date(T0).toISOString());
    sessions.expiries.set('replay-old', new Date(T0).toISOString());
    sessions.expiries.set('session-live', new Date(T0 * 2).toISOString());
    expect(await run()).toMatchObject({ expiredSessions: 2 });
    expect([...sessions.expiries.keys()]).toEqual(['session-live']);
  });

  it('repairs every inconsistency at once, and two overlapping runs do no harm', async () => {
    const pending = record('p1', { status: 'pending' });
    const deleting = record('d1', { status: 'deleting' });
    const live = record('l1', { status: 'indexed' });
    await repo.repository.putMany([pending, deleting, live, documentOf([live])]);
    await vectors.index.upsert(TENANT, [vector(deleting), vector(live), { ...vector(live), id: 'orphan' }]);
    sessions.expiries.set('s1', new Date(T0).toISOString());
    const [a, b] = await Promise.all([run(), run()]);
    expect(a.reindexed + b.reindexed).toBe(1);
    expect(vectors.idsIn(TENANT)).toEqual(['l1', 'p1']);
    expect([...repo.rows.keys()].sort()).toEqual(['doc-1', 'l1', 'p1']);
    expect(repo.rows.get('p1')?.status).toBe('indexed');
    expect(sessions.expiries.size).toBe(0);
    expect(await run()).toMatchObject({ reindexed: 0, deletedRecords: 0, orphanVectors: 0, expiredSessions: 0 });
  });

  it('stops at the deadline and the next run continues where work is left', async () => {
    await repo.repository.putMany(['a', 'b', 'c', 'd'].map((id) => record(id, { status: 'pending' })));
    clock = steppingClock(T0 + 10 * 60_000, 1_000);
    const first = await runCleanup({
      repository: repo.repository,
      index: vectors.index,
      embedder,
      clock,
      deadline: new Date(T0 + 10 * 60_000 + 2_500),
      pageSize: 1,
    });
    expect(first.complete).toBe(false);
    expect(first.reindexed).toBeGreaterThan(0);
    expect(first.reindexed).toBeLessThan(4);
    const second = await runCleanup({
      repository: repo.repository,
      index: vectors.index,
      embedder,
      clock,
      deadline: new Date(T0 * 2),
      pageSize: 1,
    });
    expect(first.reindexed + second.reindexed).toBe(4);
    expect(second.complete).toBe(true);
  });

  it('drops the vector it wrote when the record was deleted while it re-indexed', async () => {
    const chunk = record('c1', { status: 'pending' });
    await repo.repository.putMany([chunk]);
    const racing: Embedder = {
      ...embedder,
      async embed(texts, purpose) {
        await repo.repository.deleteMany(['c1']); // a user's delete wins the race
        return embedder.embed(texts, purpose);
      },
    };
    const report = await runCleanup({
      repository: repo.repository,
      index: vectors.index,
      embedder: racing,
      clock,
      deadline: new Date(T0 * 2),
    });
    expect(report).toMatchObject({ reindexed: 0, orphanVectors: 0 });
    expect(vectors.idsIn(TENANT)).toEqual([]);
  });
});
