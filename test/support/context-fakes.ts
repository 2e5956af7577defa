import type { TenantKey, VectorIndex, VectorItem, VectorMatch } from '@memgate/core';

// An exact in-memory VectorIndex (cosine, equality filters like the real adapters) and a wrapper that fails
// chosen calls, for the context store's failure-injection tests.

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

export function createExactIndex() {
  const namespaces = new Map<TenantKey, Map<string, VectorItem>>();
  const index: VectorIndex = {
    async upsert(namespace, items) {
      const ns = namespaces.get(namespace) ?? new Map<string, VectorItem>();
      namespaces.set(namespace, ns);
      for (const item of items) ns.set(item.id, item);
    },
    async query(namespace, { vector, topK, filter = {} }) {
      const matches: VectorMatch[] = [];
      for (const item of namespaces.get(namespace)?.values() ?? []) {
        const ok = Object.entries(filter).every(([key, value]) => {
          const actual = item.metadata[key as keyof VectorItem['metadata']];
          return Array.isArray(actual) ? actual.includes(value as string) : actual === value;
        });
        if (ok) matches.push({ id: item.id, score: Math.max(0, cosine(vector, item.values)), metadata: item.metadata });
      }
      return matches.sort((a, b) => b.score - a.score).slice(0, topK);
    },
    async delete(namespace, ids) {
      for (const id of ids) namespaces.get(namespace)?.delete(id);
    },
    async listIds(namespace, { cursor, limit }) {
      const ids = [...(namespaces.get(namespace)?.keys() ?? [])].sort().filter((id) => !cursor || id > cursor);
      const items = ids.slice(0, limit);
      return { items, nextCursor: ids.length > limit ? (items.at(-1) ?? null) : null };
    },
    async listNamespaces() {
      return [...namespaces.keys()].filter((name) => (namespaces.get(name)?.size ?? 0) > 0);
    },
  };
  const allIds = () => [...namespaces.values()].flatMap((ns) => [...ns.keys()]);
  return { index, allIds };
}

/** Wraps `index` so that the named method throws while `failing[method]` is true. */
export function createFailingIndex(inner: VectorIndex) {
  const failing: Partial<Record<keyof VectorIndex, boolean>> = {};
  const guard =
    <K extends keyof VectorIndex>(method: K) =>
    (...args: Parameters<VectorIndex[K]>) => {
      if (failing[method]) return Promise.reject(new Error(`injected ${method} failure`));
      return (inner[method] as (...a: Parameters<VectorIndex[K]>) => ReturnType<VectorIndex[K]>)(...args);
    };
  const index: VectorIndex = {
    upsert: guard('upsert'),
    query: guard('query'),
    delete: guard('delete'),
    listIds: guard('listIds'),
    listNamespaces: guard('listNamespaces'),
  };
  return { index, failing };
}
