import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLexicalEmbedder } from '@memgate/adapters';
import { type ContextRepository, createContextStore, type Principal } from '@memgate/core';
import { createLocalVectorIndex, type LocalVectorIndex } from '@memgate/local/vector-index/index';
import { afterEach, describe, expect, it } from 'vitest';
import { createMemoryRepository } from '../support/memory-ports.ts';

// Confirmations live in the embedded index under DATA_DIR (vector-index/shown.ts): a restarted server shows hits its
// previous run proved visible without reading their rows, while the tenant's generation tag holds, and not after.

const alice: Principal = {
  userId: 'alice',
  orgs: [],
  scopes: new Set(['context:read', 'context:write', 'context:delete']),
};
const band = { similarity_threshold: 1, minimum_similarity_threshold: 0, top_k: 10 };
const opened: LocalVectorIndex[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((index) => index.close()));
});

function harness() {
  const dir = mkdtempSync(join(tmpdir(), 'memgate-confirmed-'));
  const clock = { now: () => new Date() };
  const memory = createMemoryRepository(clock);
  const calls: string[] = [];
  // Every repository call a search makes, by name.
  const repository = new Proxy(memory.repository, {
    get(target, name: keyof ContextRepository) {
      const method = target[name] as (...args: unknown[]) => unknown;
      return (...args: unknown[]) => {
        calls.push(name);
        return method.apply(target, args);
      };
    },
  });
  /** One run of the server: its own index over the same directory, no cache (so only the index vouches). */
  const start = async () => {
    const index = await createLocalVectorIndex({ dir });
    opened.push(index);
    const store = createContextStore({
      repository,
      index,
      embedder: createLexicalEmbedder(),
      clock,
      visibilityCacheBytes: 0,
    });
    return { index, store };
  };
  return { memory, calls, start };
}

describe('search over the embedded index: confirmations across a restart', () => {
  it('are used after a restart (no row read) and ignored once the tenant’s generation moved', async () => {
    const h = harness();
    const run1 = await h.start();
    const documents = ['heron', 'egret', 'ibis'].map((bird) => ({
      fileName: `${bird}.txt`,
      content: `The ${bird} wades in the marsh at dawn and eats small fish.`,
    }));
    await run1.store.add(alice, { source: 'birds', documents });
    const query = { query: 'which bird wades in the marsh', ...band };
    const proved = await run1.store.search(alice, query);
    expect(proved).toHaveLength(3);
    await run1.index.close();

    const run2 = await h.start();
    h.calls.length = 0;
    expect(await run2.store.search(alice, query)).toEqual(proved);
    expect(h.calls).toEqual(['readGenerations']); // the tag only: no row read

    // Another process deletes one document (the vector store is not this one: its vectors stay here).
    await h.memory.repository.transition([`${proved[0]?.documentId}`], ['indexed'], 'deleting');
    await h.memory.repository.bumpGenerations(['user:alice']);
    h.calls.length = 0;
    const after = await run2.store.search(alice, query);
    expect(after.map((hit) => hit.documentId)).toEqual(proved.slice(1).map((hit) => hit.documentId));
    expect(h.calls).toEqual(['readGenerations', 'getForSearch']);
  });
});
