import { describe, expect, it } from 'vitest';
import { createFailingIndex } from '../../../../../test/support/context-fakes.ts';
import { createMemoryIndex, createMemoryRepository } from '../../../../../test/support/memory-ports.ts';
import type { Principal } from '../../auth/index.ts';
import type { ContextRepository, Embedder } from '../ports.ts';
import type { ContextRecord } from '../record.ts';
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
    ['document row write', (s: ReturnType<typeof setup>) => failOnCall(s.repository, 'createMany', 1)],
  ] as const) {
    it(`a failing ${label} rejects the add and shows nothing; the same add retried is whole`, async () => {
      const s = setup();
      inject(s);
      const content = 'narwhal horn.\n\nnarwhal tusk.';
      await expect(s.store.add(alice, addOne(content))).rejects.toThrow();
      s.failing.upsert = false;
      expect(await s.visible()).toEqual([]);
      expect(await s.found('narwhal horn')).toEqual([]);
      const retried = await s.store.add(alice, addOne(content));
      expect(await s.visible()).toHaveLength(1 + (retried.documents[0]?.chunks ?? 0));
      expect(await s.found('narwhal horn')).toEqual(['f']);
      expect(s.rows.size).toBe(1 + (retried.documents[0]?.chunks ?? 0));
      expect(s.allIds()).toHaveLength(retried.documents[0]?.chunks ?? 0);
    });
  }

  it('a re-add whose document row write fails rejects and hides the old version until retried', async () => {
    const s = setup();
    await s.store.add(alice, addOne('walrus whiskers'));
    // A re-add that changes the document (its tags): an identical one writes nothing.
    const changed = { ...addOne('walrus whiskers'), tags: ['tusked'] };
    failOnCall(s.repository, 'transition', 1);
    await expect(s.store.add(alice, changed)).rejects.toThrow();
    expect(await s.found('walrus whiskers')).toEqual([]);
    await s.store.add(alice, changed);
    expect(await s.found('walrus whiskers')).toEqual(['f']);
  });

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

describe('createContextStore: new documents written once, beside concurrent adds and deletes', () => {
  // Three ~1 KB paragraphs: three chunks.
  const content = ['song', 'pod', 'calf'].map((word) => `beluga ${word} `.repeat(70).trim()).join('\n\n');

  it('writes each row of a new document once: no pending state, no transition', async () => {
    const s = setup();
    failOnCall(s.repository, 'transition', 1);
    const written: string[] = [];
    for (const method of ['putMany', 'createMany'] as const) {
      const original = s.repository[method].bind(s.repository);
      s.repository[method] = (async (records: ContextRecord[]) => {
        written.push(...records.map((record) => `${record._id} ${record.status}`));
        return original(records);
      }) as never;
    }
    const added = await s.store.add(alice, addOne(content));
    expect(added.documents[0]?.chunks).toBe(3);
    expect(written.sort()).toEqual([...s.rows.keys()].map((id) => `${id} indexed`).sort());
    expect(await s.found('beluga song')).toEqual(['f', 'f', 'f']);
  });

  it('the same new document added twice at once: both succeed, one set of rows and vectors, shown whole', async () => {
    const s = setup();
    const [a, b] = await Promise.all([s.store.add(alice, addOne(content)), s.store.add(alice, addOne(content))]);
    expect(a.contextIds).toEqual(b.contextIds);
    expect(await s.visible()).toHaveLength(4);
    expect(s.allIds()).toHaveLength(3);
    expect((await s.store.search(alice, { query: 'beluga', ...band })).length).toBe(3);
  });

  it('an add that read its document absent, while another add writes it and a delete removes it, is whole', async () => {
    const s = setup();
    const create = s.repository.createMany.bind(s.repository);
    let interleaved = false;
    s.repository.createMany = async (records) => {
      if (!interleaved) {
        interleaved = true;
        await s.store.add(alice, addOne(content)); // the same document, from another request
        await s.store.delete(alice, { source: 'f' });
        expect(await s.found('beluga song')).toEqual([]);
      }
      return create(records);
    };
    await s.store.add(alice, addOne(content));
    expect(interleaved).toBe(true);
    expect(await s.visible()).toHaveLength(4);
    expect((await s.store.search(alice, { query: 'beluga', ...band })).length).toBe(3);
    expect(s.allIds()).toHaveLength(3);
  });

  it('a delete keeps the document row, hidden, until the cleanup: the chunks and vectors go at once', async () => {
    const s = setup();
    const [id] = (await s.store.add(alice, addOne(content))).contextIds;
    await s.store.delete(alice, { source: 'f' });
    expect([...s.rows.values()].map((row) => [row._id, row.status])).toEqual([[id, 'deleting']]);
    expect(s.allIds()).toEqual([]);
    expect(await s.visible()).toEqual([]);
  });
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

  it("deleting a chained document by id takes it out of its neighbours' links in view, and changes nothing else", async () => {
    const s = setup();
    const documents = ['first link', 'second link', 'third link'].map((content, i) => ({ content, fileName: `c${i}` }));
    const [c1, c2, c3] = (await s.store.add(alice, { documents, chained: true })).contextIds as [
      string,
      string,
      string,
    ];
    const before = (await s.store.view(alice, {})).items;
    expect(before.find((record) => record._id === c1)?.children_context_nodes).toContain(c2);
    expect(before.find((record) => record._id === c3)?.parent_context_nodes).toEqual([c2]);

    await s.store.delete(alice, { source: c2, by_id: true });
    const after = (await s.store.view(alice, {})).items;
    const expected = before
      .filter((record) => record.document_id !== c2)
      .map((record) => ({
        ...record,
        parent_context_nodes: record.parent_context_nodes.filter((id) => id !== c2),
        children_context_nodes: record.children_context_nodes.filter((id) => id !== c2),
      }));
    expect(after).toEqual(expected);
    expect(after.find((record) => record._id === c1)?.children_context_nodes).toHaveLength(1);
    expect(after.find((record) => record._id === c3)?.parent_context_nodes).toEqual([]);
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
