import type {
  ContextRecord,
  ContextRepository,
  ExpiringItems,
  Page,
  RecordStatus,
  TenantKey,
  VectorIndex,
  VectorItem,
} from '@memgate/core';

// In-memory stand-ins for the core ports, with the same semantics as the real adapters (conditional transitions,
// key-based cursors that survive deletions). Every call yields to the event loop first, so two concurrent users
// really interleave.
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

function pageAfter<T>(items: T[], keyOf: (item: T) => string, cursor: string | undefined, limit: number): Page<T> {
  const rest = cursor === undefined ? items : items.filter((item) => keyOf(item) > cursor);
  const slice = rest.slice(0, limit);
  const last = slice.at(-1);
  return { items: slice, nextCursor: rest.length > limit && last ? keyOf(last) : null };
}

export function createMemoryRepository(clock: { now(): Date }) {
  const rows = new Map<string, ContextRecord>();
  const unsettledKey = (record: ContextRecord) => `${record.updatedAt}#${record._id}`;
  const repository: ContextRepository = {
    async putMany(records) {
      await turn();
      for (const record of records) rows.set(record._id, structuredClone(record));
    },
    async getMany(ids) {
      await turn();
      return ids.flatMap((id) => (rows.has(id) ? [structuredClone(rows.get(id) as ContextRecord)] : []));
    },
    async getForSearch(ids) {
      await turn();
      return ids.flatMap((id) => {
        const row = rows.get(id);
        if (!row) return [];
        const { _id, kind, status, tenant, document_id, children_context_nodes, text, source } = structuredClone(row);
        const fields = { _id, kind, status, tenant, document_id, children_context_nodes, text, source };
        return [{ ...fields, metadata: { file_name: row.metadata.file_name } }];
      });
    },
    async get(id) {
      await turn();
      return rows.has(id) ? structuredClone(rows.get(id)) : undefined;
    },
    async transition(ids, from, to: RecordStatus) {
      await turn();
      const moved: string[] = [];
      for (const id of ids) {
        const row = rows.get(id);
        if (!row || !from.includes(row.status)) continue;
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
      const deleted = ids.filter((id) => rows.get(id)?.status === status);
      for (const id of deleted) rows.delete(id);
      return deleted;
    },
    async deleteChildrenWhile(guardId, ids, status) {
      await turn();
      if (rows.get(guardId)?.status !== status) return false;
      for (const id of ids) rows.delete(id);
      return true;
    },
    async listByTenant(tenant, { documentsOnly = false, cursor, limit }) {
      await turn();
      const items = [...rows.values()].filter(
        (row) => row.tenant === tenant && (!documentsOnly || row.kind === 'document'),
      );
      return pageAfter(items, (row) => row._id, cursor, limit);
    },
    async listByOwner(userId, { cursor, limit }) {
      await turn();
      const items = [...rows.values()].filter((row) => row.user_id === userId);
      return pageAfter(items, (row) => row._id, cursor, limit);
    },
    async listUnsettled({ before, cursor, limit }) {
      await turn();
      const items = [...rows.values()]
        .filter((row) => (row.status === 'pending' || row.status === 'deleting') && row.updatedAt < before)
        .sort((a, b) => unsettledKey(a).localeCompare(unsettledKey(b)));
      return pageAfter(structuredClone(items), unsettledKey, cursor, limit);
    },
    async countAttempt(id) {
      await turn();
      const row = rows.get(id);
      if (!row) return 0;
      row.attempts += 1;
      return row.attempts;
    },
  };
  return { repository, rows };
}

export function createMemoryIndex() {
  const namespaces = new Map<TenantKey, Map<string, VectorItem>>();
  const index: VectorIndex = {
    async upsert(namespace, items) {
      await turn();
      const ns = namespaces.get(namespace) ?? new Map();
      namespaces.set(namespace, ns);
      for (const item of items) ns.set(item.id, item);
    },
    async query(namespace, { topK }) {
      await turn();
      return [...(namespaces.get(namespace)?.values() ?? [])]
        .slice(0, topK)
        .map((item) => ({ id: item.id, score: 1, metadata: item.metadata }));
    },
    async delete(namespace, ids) {
      await turn();
      for (const id of ids) namespaces.get(namespace)?.delete(id);
    },
    async listIds(namespace, { cursor, limit }) {
      await turn();
      const ids = [...(namespaces.get(namespace)?.keys() ?? [])].sort();
      return pageAfter(ids, (id) => id, cursor, limit);
    },
    async listNamespaces() {
      await turn();
      return [...namespaces.entries()].filter(([, ns]) => ns.size > 0).map(([name]) => name);
    },
  };
  const idsIn = (namespace: TenantKey) => [...(namespaces.get(namespace)?.keys() ?? [])].sort();
  return { index, namespaces, idsIn };
}

export function createMemorySessions() {
  const expiries = new Map<string, string>();
  const sessions: ExpiringItems = {
    async listExpired({ before, cursor, limit }) {
      await turn();
      const ids = [...expiries.entries()]
        .filter(([, at]) => at < before)
        .map(([id]) => id)
        .sort();
      return pageAfter(ids, (id) => id, cursor, limit);
    },
    async delete(ids) {
      await turn();
      for (const id of ids) expiries.delete(id);
    },
  };
  return { sessions, expiries };
}
