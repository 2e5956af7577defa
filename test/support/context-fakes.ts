import type { VectorIndex } from '@memgate/core';

// A wrapper that fails chosen calls of a VectorIndex, for the context store's failure-injection tests (the exact
// in-memory index itself is createMemoryIndex in memory-ports.ts).

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
