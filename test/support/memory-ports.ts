import { randomUUID } from 'node:crypto';
import {
  type ContextRecord,
  type ContextRepository,
  type ExpiringItems,
  invalid,
  type ListingPage,
  namedDocumentOf,
  type RecordStatus,
  type TenantKey,
  type VectorIndex,
  type VectorItem,
  type VectorMatch,
} from '@memgate/core';

// In-memory stand-ins for the core ports, held to the same contracts as the real adapters: each runs its port's
// conformance suite (test/support/memory-ports.test.ts). Conditional transitions, newest-first listings with
// key-based cursors that survive deletions and are refused on another listing, exact cosine search with filters.
// Every call yields to the event loop first, so two concurrent users really interleave.
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** A cursor names its listing, so one listing's cursor is refused by another, as DynamoDB's start keys are. */
function cursorOf(listing: string, key: string): string {
  return Buffer.from(JSON.stringify({ listing, key })).toString('base64url');
}

function keyAfter(listing: string, cursor: string | undefined): string | undefined {
  if (cursor === undefined) return undefined;
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (parsed?.listing === listing && typeof parsed.key === 'string') return parsed.key;
  } catch {
    // below
  }
  throw invalid('cursor is not a nextCursor this listing returned', 'cursor');
}

/** One page of `items` (already in listing order, by `keyOf`) after the cursor's key. */
function pageAfter<T>(
  listing: string,
  items: T[],
  keyOf: (item: T) => string,
  { cursor, limit, descending = false }: { cursor: string | undefined; limit: number; descending?: boolean },
): ListingPage<T> {
  const after = keyAfter(listing, cursor);
  const rest =
    after === undefined ? items : items.filter((item) => (descending ? keyOf(item) < after : keyOf(item) > after));
  const slice = rest.slice(0, limit);
  const last = slice.at(-1);
  return {
    items: slice,
    nextCursor: rest.length > limit && last ? cursorOf(listing, keyOf(last)) : null,
    cursorAfter: (index) => cursorOf(listing, keyOf(slice[index] as T)),
  };
}

const newestKey = (record: ContextRecord) => `${record.createdAt}#${record._id}`;
const unsettledKey = (record: ContextRecord) => `${record.updatedAt}#${record._id}`;
const byKey = (keyOf: (record: ContextRecord) => string) => (a: ContextRecord, b: ContextRecord) =>
  keyOf(a) < keyOf(b) ? -1 : keyOf(a) > keyOf(b) ? 1 : 0;

export function createMemoryRepository(clock: { now(): Date }) {
  const rows = new Map<string, ContextRecord>();
  /** Whether findDocumentsNamed answers (DynamoDB's does once its backfill wrote the marker); tests may turn it off. */
  const names = { indexed: true };
  /** Each tenant's generation row: a random epoch set when it is created, and its counter. */
  const generations = new Map<TenantKey, { epoch: string; counter: number }>();
  const tagOf = (tenant: TenantKey) => {
    const row = generations.get(tenant);
    return row && `${row.epoch}:${row.counter}`;
  };
  const update = (tenant: TenantKey, by: number) => {
    const row = generations.get(tenant) ?? { epoch: randomUUID(), counter: 0 };
    row.counter += by;
    generations.set(tenant, row);
    return tagOf(tenant) as string;
  };
  const copy = (record: ContextRecord) => structuredClone(record);
  const tagsOf = (tenants: readonly TenantKey[]) => {
    const tags = new Map<TenantKey, string>();
    for (const tenant of tenants) {
      const tag = tagOf(tenant);
      if (tag !== undefined) tags.set(tenant, tag);
    }
    return tags;
  };

  /** Newest first, as the byTenant/byOwner/documentsByTenant indexes are read. */
  function newestFirst(
    listing: string,
    keep: (row: ContextRecord) => boolean,
    cursor: string | undefined,
    limit: number,
  ) {
    const items = [...rows.values()].filter(keep).sort(byKey(newestKey)).reverse();
    return pageAfter(listing, items.map(copy), newestKey, { cursor, limit, descending: true });
  }

  const repository: ContextRepository = {
    async putMany(records) {
      await turn();
      for (const record of records) rows.set(record._id, copy(record));
    },
    async createMany(records) {
      await turn();
      const existing = new Set<string>();
      for (const record of new Map(records.map((r) => [r._id, r])).values()) {
        if (rows.has(record._id)) existing.add(record._id);
        else rows.set(record._id, copy(record));
      }
      return [...existing];
    },
    async getMany(ids) {
      await turn();
      return [...new Set(ids)].flatMap((id) => (rows.has(id) ? [copy(rows.get(id) as ContextRecord)] : []));
    },
    async getForSearch(ids) {
      await turn();
      return [...new Set(ids)].flatMap((id) => {
        const row = rows.get(id);
        if (!row) return [];
        const { _id, kind, status, tenant, document_id, children_context_nodes, text, source } = copy(row);
        const fields = { _id, kind, status, tenant, document_id, children_context_nodes, text, source };
        return [{ ...fields, metadata: { file_name: row.metadata.file_name } }];
      });
    },
    async get(id) {
      await turn();
      return rows.has(id) ? copy(rows.get(id) as ContextRecord) : undefined;
    },
    async transition(ids, from, to: RecordStatus, fingerprints) {
      await turn();
      const moved: string[] = [];
      for (const id of new Set(ids)) {
        const row = rows.get(id);
        if (!row || !from.includes(row.status)) continue;
        const fingerprint = fingerprints?.get(id);
        if (fingerprint !== undefined && row.fingerprint !== fingerprint) continue;
        if (fingerprint === undefined) delete row.fingerprint;
        row.status = to;
        row.indexed = to === 'indexed';
        row.updatedAt = clock.now().toISOString();
        moved.push(id);
      }
      return moved;
    },
    async deleteMany(ids) {
      await turn();
      for (const id of ids) rows.delete(id);
    },
    async deleteWhere(ids, status) {
      await turn();
      const deleted = [...new Set(ids)].filter((id) => rows.get(id)?.status === status);
      for (const id of deleted) rows.delete(id);
      return deleted;
    },
    async deleteUnchanged(list) {
      await turn();
      const deleted = list.filter((row) => rows.get(row._id)?.updatedAt === row.updatedAt).map((row) => row._id);
      for (const id of deleted) rows.delete(id);
      return [...new Set(deleted)];
    },
    async deleteChildrenWhile(guardId, ids, status) {
      await turn();
      if (rows.get(guardId)?.status !== status) return false;
      for (const id of ids) rows.delete(id);
      return true;
    },
    async unlistChild(documentId, childId) {
      await turn();
      const row = rows.get(documentId);
      if (row?.status !== 'indexed' || !row.children_context_nodes.includes(childId)) return false;
      row.children_context_nodes = row.children_context_nodes.filter((id) => id !== childId);
      delete row.fingerprint;
      row.updatedAt = clock.now().toISOString();
      return true;
    },
    async listByTenant(tenant, { documentsOnly = false, cursor, limit }) {
      await turn();
      const keep = (row: ContextRecord) => row.tenant === tenant && (!documentsOnly || row.kind === 'document');
      return newestFirst(`tenant ${documentsOnly ? 'documents' : 'records'} ${tenant}`, keep, cursor, limit);
    },
    async listDocumentNames(tenant, { cursor, limit }) {
      await turn();
      const keep = (row: ContextRecord) => row.tenant === tenant && row.kind === 'document';
      const page = newestFirst(`tenant document names ${tenant}`, keep, cursor, limit);
      return { items: page.items.map(namedDocumentOf), nextCursor: page.nextCursor };
    },
    async findDocumentsNamed(tenant, name) {
      await turn();
      if (!names.indexed) return undefined;
      return [...rows.values()]
        .filter((row) => row.tenant === tenant && row.kind === 'document')
        .filter((row) => row.source === name || row.metadata.file_name === name)
        .map(namedDocumentOf);
    },
    async listByOwner(userId, { documentsOnly = false, cursor, limit }) {
      await turn();
      // One owner listing, as DynamoDB's byOwner index is for both: documentsOnly filters it.
      const keep = (row: ContextRecord) => row.user_id === userId && (!documentsOnly || row.kind === 'document');
      return newestFirst(`owner ${userId}`, keep, cursor, limit);
    },
    async listUnsettled({ before, cursor, limit }) {
      await turn();
      const items = [...rows.values()]
        .filter((row) => (row.status === 'pending' || row.status === 'deleting') && unsettledKey(row) < before)
        .sort(byKey(unsettledKey));
      return pageAfter('unsettled', items.map(copy), unsettledKey, { cursor, limit });
    },
    async countAttempt(id) {
      await turn();
      const row = rows.get(id);
      if (!row) return 0;
      row.attempts += 1;
      return row.attempts;
    },
    async readGenerations(tenants) {
      await turn();
      return tagsOf(tenants);
    },
    async ensureGenerations(tenants) {
      await turn();
      return new Map(tenants.map((tenant) => [tenant, update(tenant, 0)]));
    },
    async getManyWithGenerations(ids, tenants) {
      await turn();
      const records = [...new Set(ids)].flatMap((id) => (rows.has(id) ? [copy(rows.get(id) as ContextRecord)] : []));
      return { records, generations: tagsOf(tenants) };
    },
    async bumpGenerations(tenants) {
      await turn();
      for (const tenant of new Set(tenants)) update(tenant, 1);
    },
  };
  return { repository, rows, generations, names };
}

function cosine(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as number;
    const y = b[i] as number;
    dot += x * y;
    na += x * x;
    nb += y * y;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
}

/** An exact VectorIndex: cosine similarity clamped to [0, 1], equality filters (membership for arrays). */
export function createMemoryIndex() {
  const namespaces = new Map<TenantKey, Map<string, VectorItem>>();
  /** Confirmations by namespace and id (VectorIndex.confirm): an upsert or a delete of the id drops its own. */
  const confirmed = new Map<TenantKey, Map<string, string>>();
  const index: VectorIndex = {
    async upsert(namespace, items) {
      await turn();
      const ns = namespaces.get(namespace) ?? new Map<string, VectorItem>();
      namespaces.set(namespace, ns);
      for (const item of items) {
        ns.set(item.id, item);
        confirmed.get(namespace)?.delete(item.id);
      }
    },
    async confirm(namespace, confirmations) {
      await turn();
      const tags = confirmed.get(namespace) ?? new Map<string, string>();
      confirmed.set(namespace, tags);
      for (const { id, text, tag } of confirmations) {
        const held = namespaces.get(namespace)?.get(id)?.text;
        if (held !== undefined && held === text) tags.set(id, tag);
      }
    },
    async query(namespace, { vector, topK, filter = {} }) {
      await turn();
      const matches: VectorMatch[] = [];
      for (const item of namespaces.get(namespace)?.values() ?? []) {
        const ok = Object.entries(filter).every(([key, value]) => {
          const actual = item.metadata[key as keyof VectorItem['metadata']];
          return Array.isArray(actual) ? actual.includes(value as string) : actual === value;
        });
        if (!ok) continue;
        const match: VectorMatch = {
          id: item.id,
          score: Math.max(0, cosine(vector, item.values)),
          metadata: item.metadata,
        };
        const tag = confirmed.get(namespace)?.get(item.id);
        if (tag !== undefined && item.text !== undefined) match.confirmed = { text: item.text, tag };
        matches.push(match);
      }
      return matches.sort((a, b) => b.score - a.score).slice(0, topK);
    },
    async delete(namespace, ids) {
      await turn();
      for (const id of ids) {
        namespaces.get(namespace)?.delete(id);
        confirmed.get(namespace)?.delete(id);
      }
    },
    async listIds(namespace, { cursor, limit }) {
      await turn();
      const ids = [...(namespaces.get(namespace)?.keys() ?? [])].sort();
      return pageAfter(`ids ${namespace}`, ids, (id) => id, { cursor, limit });
    },
    async listNamespaces() {
      await turn();
      return [...namespaces.entries()].filter(([, ns]) => ns.size > 0).map(([name]) => name);
    },
  };
  const idsIn = (namespace: TenantKey) => [...(namespaces.get(namespace)?.keys() ?? [])].sort();
  const allIds = () => [...namespaces.values()].flatMap((ns) => [...ns.keys()]);
  return { index, namespaces, confirmed, idsIn, allIds };
}

/** Expiring items as id → expiry (ISO); listed oldest expiry first, as the byExpiry index is read. */
export function createMemorySessions() {
  const expiries = new Map<string, string>();
  const sessions: ExpiringItems = {
    async listExpired({ before, cursor, limit }) {
      await turn();
      const keys = [...expiries.entries()]
        .filter(([, at]) => at < before)
        .map(([id, at]) => `${at}#${id}`)
        .sort();
      const page = pageAfter('expired', keys, (key) => key, { cursor, limit });
      return { ...page, items: page.items.map((key) => key.slice(key.indexOf('#') + 1)) };
    },
    async delete(ids) {
      await turn();
      for (const id of ids) expiries.delete(id);
    },
  };
  return { sessions, expiries };
}
