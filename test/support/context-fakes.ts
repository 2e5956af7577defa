import type { VectorIndex } from '@memgate/core';

// A wrapper that fails chosen calls of a VectorIndex, for the context store's failure-injection tests (the exact
// in-memory index itself is createMemoryIndex in memory-ports.ts).

/** Wraps `index` so that the named method throws while `failing[method]` is true. */
export function createFailingIndex(inner: VectorIndex) {
  const failing: Partial<Record<keyof VectorIndex, boolean>> = {};
  type Methods = Required<VectorIndex>;
  const guard =
    <K extends keyof Methods>(method: K) =>
    (...args: Parameters<Methods[K]>) => {
      if (failing[method]) return Promise.reject(new Error(`injected ${method} failure`));
      return (inner[method] as (...a: Parameters<Methods[K]>) => ReturnType<Methods[K]>)(...args);
    };
  const index: VectorIndex = {
    upsert: guard('upsert'),
    query: guard('query'),
    delete: guard('delete'),
    listIds: guard('listIds'),
    listNamespaces: guard('listNamespaces'),
    ...(inner.confirm ? { confirm: guard('confirm') } : {}),
  };
  return { index, failing };
}
