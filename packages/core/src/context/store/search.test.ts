import { describe, expect, it } from 'vitest';
import { createFailingIndex } from '../../../../../test/support/context-fakes.ts';
import { createMemoryIndex, createMemoryRepository } from '../../../../../test/support/memory-ports.ts';
import type { Principal } from '../../auth/index.ts';
import { querySpeakerIds } from '../lexical/index.ts';
import type { Embedder, VectorIndex, VectorQuery } from '../ports.ts';
import { createContextStore } from './index.ts';
import { withoutConfirm } from './test-processes.ts';

// Bag-of-words vectors: "alpha beta" against "alpha beta" scores 1, against "alpha gamma" 0.5.
const WORDS = ['alpha', 'beta', 'gamma', 'delta'];
const embedder: Embedder = {
  id: 'fake-words:4',
  dimension: WORDS.length,
  async embed(texts) {
    return texts.map((text) => {
      const vector = new Float32Array(WORDS.map((word) => (text.includes(word) ? 1 : 0)));
      const norm = Math.hypot(...vector) || 1;
      return vector.map((value) => value / norm);
    });
  },
};

const alice: Principal = {
  userId: 'alice',
  orgs: [],
  scopes: new Set(['context:read', 'context:write', 'context:delete']),
};

function setup() {
  const clock = { now: () => new Date() };
  const { repository } = createMemoryRepository(clock);
  const exact = createMemoryIndex();
  const { index, failing } = createFailingIndex(exact.index);
  const queries: VectorQuery[] = [];
  const recording: VectorIndex = {
    ...index,
    query: (namespace, query) => {
      queries.push(query);
      return index.query(namespace, query);
    },
  };
  const store = createContextStore({ repository, index: recording, embedder, clock });
  const add = (content: string, names: string[], source = 'notes') =>
    store.add(alice, { source, documents: names.map((fileName) => ({ fileName, content })) });
  return { store, failing, queries, add };
}

const names = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}-${i}`);

describe('search: the band applies before top_k (DESIGN.md section 3)', () => {
  it('returns in-band results when more than top_k better ones lie above the band', async () => {
    const s = setup();
    await s.add('alpha beta', names('exact', 15));
    await s.add('alpha gamma', names('partial', 3));
    const hits = await s.store.search(alice, {
      query: 'alpha beta',
      similarity_threshold: 0.9,
      minimum_similarity_threshold: 0.2,
      top_k: 10,
    });
    expect(hits.map((hit) => hit.fileName).sort()).toEqual(['partial-0', 'partial-1', 'partial-2']);
    for (const hit of hits) expect(hit.score).toBeCloseTo(0.5, 5);
  });

  // 30 hidden records: top_k is still filled, past more rounds of reading rows than 12 take.
  it.each([12, 30])('never lets records hidden by their state use up a slot (%i hidden)', async (hidden) => {
    const s = setup();
    await s.add('alpha beta', names('gone', hidden), 'old');
    await s.add('alpha gamma', names('kept', 4));
    // The vector store fails mid-delete: the records are hidden (deleting), their vectors still match best.
    s.failing.delete = true;
    await s.store.delete(alice, { source: 'old' });
    const hits = await s.store.search(alice, {
      query: 'alpha beta',
      similarity_threshold: 1,
      minimum_similarity_threshold: 0,
      top_k: 3,
    });
    expect(hits).toHaveLength(3);
    for (const hit of hits) expect(hit.fileName).toMatch(/^kept-/);
  });

  it('asks the index once when its answer already falls below the band', async () => {
    const s = setup();
    await s.add('gamma delta', names('unrelated', 20));
    const hits = await s.store.search(alice, {
      query: 'alpha beta',
      similarity_threshold: 1,
      minimum_similarity_threshold: 0.3,
      top_k: 5,
    });
    expect(hits).toEqual([]);
    expect(s.queries.map((query) => query.topK)).toEqual([5]);
  });

  it('asks the index once when the first answer fills top_k', async () => {
    const s = setup();
    await s.add('alpha beta', names('exact', 20));
    const hits = await s.store.search(alice, {
      query: 'alpha beta',
      similarity_threshold: 1,
      minimum_similarity_threshold: 0,
      top_k: 5,
    });
    expect(hits).toHaveLength(5);
    expect(s.queries.map((query) => query.topK)).toEqual([5]);
  });

  it('sends the query terms and the lexical weight with the vector', async () => {
    const s = setup();
    await s.add('alpha beta', ['one']);
    await s.store.search(alice, { query: 'Visited alpha', similarity_threshold: 1, minimum_similarity_threshold: 0 });
    const [query] = s.queries;
    expect(query?.lexicalWeight).toBe(0.8);
    expect(query?.terms?.indices).toHaveLength(2); // "visit" and "alpha"
    expect(query?.terms?.values).toEqual([1, 1]);
    // Its words as speaker markers: a match spoken by none of them keeps 0.6 when some chunk is (hybrid.ts).
    expect(query?.speakers).toEqual({ terms: querySpeakerIds('Visited alpha'), factor: 0.6 });
    expect(query?.speakers?.terms).toHaveLength(2);
  });
});

describe('search: reads only the rows it may show', () => {
  it('reads the best top_k of several tenants’ matches, not every tenant’s top_k', async () => {
    const clock = { now: () => new Date() };
    const { repository } = createMemoryRepository(clock);
    const read: string[][] = [];
    const counting = {
      ...repository,
      getForSearch: (ids: readonly string[]) => {
        read.push([...ids]);
        return repository.getForSearch(ids);
      },
    };
    // An index that cannot confirm (Pinecone's shape): every hit is proved by a row read.
    const index = withoutConfirm(createMemoryIndex().index);
    const store = createContextStore({ repository: counting, index, embedder, clock });
    const member: Principal = { ...alice, orgs: ['acme', 'beta'] };
    // Three tenants (alice's own, acme's, beta's), each with 5 matches; alice's own match best.
    const tenants = [
      [undefined, 'alpha beta'],
      ['acme', 'alpha beta gamma'],
      ['beta', 'alpha gamma'],
    ] as const;
    for (const [organization_id, content] of tenants) {
      const documents = names(`notes-${organization_id ?? 'own'}`, 5).map((fileName) => ({ fileName, content }));
      await store.add(member, { source: 'notes', documents, ...(organization_id ? { organization_id } : {}) });
    }
    const hits = await store.search(member, {
      query: 'alpha beta',
      similarity_threshold: 1,
      minimum_similarity_threshold: 0,
      top_k: 5,
    });
    expect(hits.map((hit) => hit.fileName).sort()).toEqual(names('notes-own', 5));
    // 5 chunks and their 5 documents; reading every tenant's top 5 would read 15 chunks and 15 documents.
    expect(read.flat()).toHaveLength(10);
  });
});
