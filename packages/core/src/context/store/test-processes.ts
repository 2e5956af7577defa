import { createFailingIndex } from '../../../../../test/support/context-fakes.ts';
import { createMemoryIndex, createMemoryRepository } from '../../../../../test/support/memory-ports.ts';
import type { Principal } from '../../auth/index.ts';
import { runCleanup } from '../../cleanup/index.ts';
import type { ContextRepository, Embedder, VectorIndex } from '../ports.ts';
import type { SearchInput } from '../service.ts';
import { createContextStore } from './index.ts';

// Test support for the visibility cache's tests (visibility-cache*.test.ts): each store `setup().process()` starts
// stands for one process (a Lambda container, the local server, the cleanup CLI) with its own cache, over the same
// rows and vectors.

/** Bag of words hashed into 64 dimensions: texts sharing words are similar. */
export const embedder: Embedder = {
  id: 'fake-hashed-words:64',
  dimension: 64,
  async embed(texts) {
    return texts.map((text) => {
      const vector = new Float32Array(64);
      for (const word of text.toLowerCase().match(/[a-z]+/g) ?? []) {
        let hash = 0;
        for (const char of word) hash = (hash * 31 + char.charCodeAt(0)) % 64;
        vector[hash] = (vector[hash] ?? 0) + 1;
      }
      const norm = Math.hypot(...vector) || 1;
      return vector.map((value) => value / norm);
    });
  },
};

export const alice: Principal = {
  userId: 'alice',
  orgs: ['acme', 'beta'],
  scopes: new Set(['context:read', 'context:write', 'context:delete']),
};
export const bob: Principal = { ...alice, userId: 'bob', orgs: [] };

/** A document of `paragraphs` chunks (each paragraph ~600 characters, so each its own chunk), all about `topic`. */
export const documentAbout = (topic: string, paragraphs = 1) =>
  Array.from({ length: paragraphs }, (_, p) =>
    Array.from({ length: 40 }, (_, i) => `${topic} note ${p} line ${i}.`).join(' '),
  ).join('\n\n');

export const band = { similarity_threshold: 1, minimum_similarity_threshold: 0, top_k: 20 } as const;

/** What vouches for a hit without a row read: the index's confirmations (no cache), or a cache only. */
export interface VouchingMode {
  /** The shared index confirms matches (VectorIndex.confirm); false: an index without it, as Pinecone. */
  confirms: boolean;
  /** Each process's cache bytes unless it says otherwise; 0: none. */
  cacheBytes?: number;
}

/** Both ways a hit is shown without a row read, for tests that must hold in each (describe.each). */
export const VOUCHING_MODES = [
  ['index confirmations', { confirms: true, cacheBytes: 0 }],
  ['cache only', { confirms: false }],
] as const satisfies [string, VouchingMode][];

/** An index without the confirm capability (Pinecone's shape). */
export function withoutConfirm(index: VectorIndex): VectorIndex {
  const { confirm: _, ...rest } = index;
  return rest;
}

/** The rows and vectors every process shares, and a way to start a process (a store with its own cache). */
export function setup(mode: VouchingMode = { confirms: false }) {
  const clock = { now: () => new Date() };
  const memory = createMemoryRepository(clock);
  const shared = createMemoryIndex();
  const { index, failing } = createFailingIndex(mode.confirms ? shared.index : withoutConfirm(shared.index));
  const rowsRead: string[][] = [];
  /** One process: its own cache (or none), and `repository` wrapped as the test needs. */
  const process = (
    options: {
      cacheBytes?: number;
      wrap?: (r: ContextRepository) => ContextRepository;
      wrapIndex?: (i: VectorIndex) => VectorIndex;
    } = {},
  ) => {
    const counting: ContextRepository = {
      ...memory.repository,
      getForSearch: (ids) => {
        rowsRead.push([...ids]);
        return memory.repository.getForSearch(ids);
      },
    };
    const repository = options.wrap ? options.wrap(counting) : counting;
    const cacheBytes = options.cacheBytes ?? mode.cacheBytes;
    return createContextStore({
      repository,
      index: options.wrapIndex ? options.wrapIndex(index) : index,
      embedder,
      clock,
      ...(cacheBytes === undefined ? {} : { visibilityCacheBytes: cacheBytes }),
    });
  };
  const cleanup = () =>
    runCleanup({
      repository: memory.repository,
      index,
      embedder,
      clock: { now: () => new Date(Date.now() + 3_600_000) },
      deadline: new Date(Date.now() + 7_200_000),
    });
  return { memory, index, shared, failing, rowsRead, process, cleanup };
}

export const ids = (hits: { contextId: string }[]) => hits.map((hit) => hit.contextId).sort();
export const search = (
  store: ReturnType<ReturnType<typeof setup>['process']>,
  query: string,
  input: Partial<SearchInput> = {},
) => store.search(alice, { query, ...band, ...input });

/** The vector metadata a chunk of alice's 'secret.txt' in `documentId` carries. */
export function metadataOf(documentId: string) {
  return {
    documentId,
    userId: 'alice',
    scopes: ['internal'],
    source: 'wiki',
    fileName: 'secret.txt',
    docType: 'text/plain',
    contextType: 'resource',
    tags: [],
  };
}
