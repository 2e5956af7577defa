import { describe, expect, it } from 'vitest';
import { createFailingIndex } from '../../../../../test/support/context-fakes.ts';
import { createMemoryIndex, createMemoryRepository } from '../../../../../test/support/memory-ports.ts';
import type { Principal } from '../../auth/index.ts';
import type { ContextRepository, Embedder } from '../ports.ts';
import { createContextStore } from './index.ts';

// A deterministic bag-of-words embedder: texts sharing words are similar, others are orthogonal.
const DIMENSION = 64;
const fakeEmbedder: Embedder = {
  id: 'fake-bow:64',
  dimension: DIMENSION,
  async embed(texts) {
    return texts.map((text) => {
      const vector = new Float32Array(DIMENSION);
      for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
        let hash = 7;
        for (const char of word) hash = (hash * 31 + char.charCodeAt(0)) % DIMENSION;
        vector[hash] = (vector[hash] ?? 0) + 1;
      }
      const norm = Math.hypot(...vector) || 1;
      return vector.map((value) => value / norm);
    });
  },
};

const alice: Principal = {
  userId: 'alice',
  orgs: ['acme'],
  scopes: new Set(['context:read', 'context:write', 'context:delete']),
};
const band = { similarity_threshold: 1, minimum_similarity_threshold: 0 };

/** Wraps the repository so that `method` throws on its `nth` call from now on (1-based). */
function failOnCall(repository: ContextRepository, method: keyof ContextRepository, nth: number) {
  let calls = 0;
  const original = repository[method] as (...args: unknown[]) => Promise<unknown>;
  (repository as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
    calls += 1;
    return calls === nth ? Promise.reject(new Error(`injected ${method} failure`)) : original(...args);
  };
}

function setup() {
  const clock = { now: () => new Date() };
  const { repository, rows } = createMemoryRepository(clock);
  const exact = createMemoryIndex();
  const { index, failing } = createFailingIndex(exact.index);
  const store = createContextStore({ repository, index, embedder: fakeEmbedder, clock });
  const visible = async () => (await store.view(alice, {})).items.map((record) => record._id);
  const found = async (query: string) => (await store.search(alice, { query, ...band })).map((hit) => hit.fileName);
  return { store, repository, rows, failing, allIds: exact.allIds, visible, found };
}

const addOne = (content: string, fileName = 'f') => ({ documents: [{ content, fileName }] });

describe('createContextStore: add failures leave nothing half visible', () => {
  for (const [label, inject] of [
    ['row write', (s: ReturnType<typeof setup>) => failOnCall(s.repository, 'putMany', 1)],
    [
      'vector upsert',
      (s: ReturnType<typeof setup>) => {
        s.failing.upsert = true;
      },
    ],
    ['transition to indexed', (s: ReturnType<typeof setup>) => failOnCall(s.repository, 'transition', 1)],
  ] as const) {
    it(`a failing ${label} rejects the add and shows nothing`, async () => {
      const s = setup();
      inject(s);
      await expect(s.store.add(alice, addOne('narwhal horn'))).rejects.toThrow();
      s.failing.upsert = false;
      expect(await s.visible()).toEqual([]);
      expect(await s.found('narwhal horn')).toEqual([]);
    });
  }

  it('the vector-store failure is a 500 with a clear message', async () => {
    const s = setup();
    s.failing.upsert = true;
    await expect(s.store.add(alice, addOne('x'))).rejects.toMatchObject({
      kind: 'internal',
      code: 'indexing_failed',
      message: expect.stringContaining('vector store'),
    });
  });
});

describe('createContextStore: delete failures never resurrect what was acknowledged', () => {
  it('a failing hide step rejects the delete and leaves the document as it was', async () => {
    const s = setup();
    await s.store.add(alice, addOne('seal pup', 'seal'));
    failOnCall(s.repository, 'transition', 1);
    await expect(s.store.delete(alice, { source: 'seal' })).rejects.toThrow();
    expect(await s.found('seal pup')).toEqual(['seal']);
  });

  for (const [label, inject] of [
    [
      'vector delete',
      (s: ReturnType<typeof setup>) => {
        s.failing.delete = true;
      },
    ],
    ['row delete', (s: ReturnType<typeof setup>) => failOnCall(s.repository, 'deleteMany', 1)],
  ] as const) {
    it(`a failing ${label} after hiding still resolves, and nothing of the document shows again`, async () => {
      const s = setup();
      await s.store.add(alice, addOne('seal pup', 'seal'));
      inject(s);
      await s.store.delete(alice, { source: 'seal' });
      s.failing.delete = false;
      expect(await s.visible()).toEqual([]);
      expect(await s.found('seal pup')).toEqual([]);
      expect([...s.rows.values()].every((row) => row.status === 'deleting' || row.kind === 'chunk')).toBe(true);
    });
  }
});

describe('createContextStore: replacing and chaining', () => {
  it('re-adding leaves exactly one set of rows and vectors', async () => {
    const s = setup();
    const first = await s.store.add(alice, addOne('same words here'));
    const second = await s.store.add(alice, addOne('same words here'));
    expect(second.contextIds).toEqual(first.contextIds);
    expect(s.rows.size).toBe(2);
    expect(s.allIds()).toHaveLength(1);
  });

  it('the same document twice in one request is stored once', async () => {
    const s = setup();
    const result = await s.store.add(alice, { documents: [{ content: 'twin' }, { content: 'twin' }] });
    expect(result.contextIds[0]).toBe(result.contextIds[1]);
    expect(s.rows.size).toBe(2);
  });

  it('organization records live in the organization partition; a non-member is refused', async () => {
    const s = setup();
    await s.store.add(alice, { ...addOne('org text'), organization_id: 'acme' });
    expect([...s.rows.values()].every((row) => row.tenant === 'org:acme')).toBe(true);
    await expect(s.store.add(alice, { ...addOne('x'), organization_id: 'globex' })).rejects.toMatchObject({
      kind: 'permission',
    });
  });
});
