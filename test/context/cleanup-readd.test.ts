import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLexicalEmbedder } from '@memgate/adapters';
import {
  type ContextRepository,
  createContextStore,
  runCleanup,
  type TenantKey,
  type VectorIndex,
} from '@memgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalVectorIndex, type LocalVectorIndex } from '../../packages/local/src/vector-index/index.ts';
import { createContextHarness } from '../support/context-app.ts';
import { createFailingIndex } from '../support/context-fakes.ts';
import { tokenFor } from '../support/tokens.ts';

// Issue 12 item 6: a document deleted, then added again (201) while the cleanup finishes the old deletion. Whatever
// step of the cleanup the re-add lands between, the re-added document must stay searchable and viewable, with all
// its chunk rows and vectors. Real parts: DynamoDB Local, the lexical embedder, the embedded usearch index.

const band = { similarity_threshold: 1, minimum_similarity_threshold: 0 };
const content = Array.from({ length: 60 }, (_, i) => `Clause ${i} of the harbour lease covers mooring fees.`).join(' ');
const sentence = 'harbour lease mooring fees';

let dir: string;
let local: LocalVectorIndex;
let failing: ReturnType<typeof createFailingIndex>['failing'];
let h: Awaited<ReturnType<typeof createContextHarness>>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'memgate-readd-'));
  local = await createLocalVectorIndex({ dir });
  const wrapped = createFailingIndex(local);
  failing = wrapped.failing;
  h = await createContextHarness(wrapped.index);
});

afterAll(async () => {
  await local.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Wraps every method of a port so `before(name)` runs before each call: each call is a step of the cleanup. */
function stepped<T extends object>(port: T, before: (name: string) => Promise<void>): T {
  const wrapped = {} as Record<string, unknown>;
  for (const [name, method] of Object.entries(port)) {
    wrapped[name] = async (...args: unknown[]) => {
      await before(name);
      return (method as (...a: unknown[]) => unknown).apply(port, args);
    };
  }
  return wrapped as T;
}

/** Adds the document, then deletes it while the vector store fails, so the cleanup is left to finish it. */
async function deletedDocument(user: string) {
  const token = await tokenFor(user);
  const add = () => h.call('POST', 'add', token, { documents: [{ content, fileName: 'lease.txt' }] });
  const added = await add();
  expect(added.status).toBe(201);
  failing.delete = true;
  expect((await h.call('POST', 'delete', token, { source: 'lease.txt' })).status).toBe(204);
  failing.delete = false;
  expect((await h.repository.get(added.json.contextIds[0]))?.status).toBe('deleting');
  return { token, add, documentId: added.json.contextIds[0] as string, chunks: added.json.documents[0].chunks };
}

/** One cleanup run over the real ports; before its step number `at` (counting every port call), `interleave` runs. */
async function cleanupWith(at: number, interleave: () => Promise<void>): Promise<{ steps: string[] }> {
  const steps: string[] = [];
  const before = async (name: string) => {
    if (steps.length === at) await interleave();
    steps.push(name);
  };
  const repository: ContextRepository = stepped(h.repository, before);
  const index: VectorIndex = stepped(local as VectorIndex, before);
  await runCleanup({
    repository,
    index,
    embedder: createLexicalEmbedder(),
    clock: { now: () => new Date(Date.now() + 3_600_000) },
    deadline: new Date(Date.now() + 7_200_000),
  });
  if (steps.length <= at) await interleave();
  return { steps };
}

async function expectWhole(token: string, documentId: string, chunks: number, when: string) {
  const docs = await h.call('GET', 'view/docs', token);
  expect(docs.json.documents, when).toEqual([expect.objectContaining({ contextId: documentId, chunks })]);
  const records = (await h.call('GET', 'view?limit=1000', token)).json.context as { _id: string }[];
  expect(records, when).toHaveLength(chunks + 1);
  const document = await h.repository.get(documentId);
  expect(document?.status, when).toBe('indexed');
  const rows = await h.repository.getMany(document?.children_context_nodes ?? []);
  expect(
    rows.map((row) => row.status),
    when,
  ).toEqual(Array(chunks).fill('indexed'));
  const tenant: TenantKey = document?.tenant as TenantKey;
  const vectors = new Set((await local.listIds(tenant, { limit: 1000 })).items);
  expect(
    rows.filter((row) => !vectors.has(row.corresponding_vector_id)).map((row) => row._id),
    `${when}: chunks without a vector`,
  ).toEqual([]);
  const found = await h.call('POST', 'search', token, { query: sentence, ...band, top_k: 100 });
  expect(found.json.results.length, when).toBe(chunks);
}

describe('the cleanup finishing a deletion while the same document is added again', () => {
  it('leaves the re-added document whole, whichever cleanup step the re-add lands between', async () => {
    // A run with the re-add after it sets how many steps there are to interleave at.
    const baseline = await deletedDocument('readd-baseline');
    const { steps } = await cleanupWith(Number.POSITIVE_INFINITY, async () => {});
    expect(await h.repository.get(baseline.documentId)).toBeUndefined();
    expect(steps.length).toBeGreaterThan(4);

    for (let at = 0; at <= steps.length; at++) {
      const doc = await deletedDocument(`readd-${at}`);
      const run = await cleanupWith(at, async () => {
        expect((await doc.add()).status).toBe(201);
      });
      const step = `re-added before step ${at} (${run.steps[at] ?? 'after the run'})`;
      await expectWhole(doc.token, doc.documentId, doc.chunks, step);
      // The next run has nothing of it left to remove.
      await cleanupWith(Number.POSITIVE_INFINITY, async () => {});
      await expectWhole(doc.token, doc.documentId, doc.chunks, `${step}, then another run`);
    }
  }, 240_000);
});

describe("a delete's removal while the same document is added again", () => {
  it('leaves the re-added document whole when the re-add lands anywhere after the delete hid the old one', async () => {
    /** The store's delete over stepped ports; the re-add runs before step `at`. */
    async function deleteWith(user: string, at: number, interleave: () => Promise<void>) {
      const steps: string[] = [];
      const before = async (name: string) => {
        if (steps.length === at) await interleave();
        steps.push(name);
      };
      const store = createContextStore({
        repository: stepped(h.repository, before),
        index: stepped(local as VectorIndex, before),
        embedder: createLexicalEmbedder(),
        clock: { now: () => new Date() },
      });
      const principal = { userId: user, orgs: [], scopes: new Set(['context:delete']) };
      await store.delete(principal, { source: 'lease.txt' });
      if (steps.length <= at) await interleave();
      return steps;
    }
    const added = async (user: string) => {
      const token = await tokenFor(user);
      const add = () => h.call('POST', 'add', token, { documents: [{ content, fileName: 'lease.txt' }] });
      const first = await add();
      expect(first.status).toBe(201);
      return { token, add, documentId: first.json.contextIds[0] as string, chunks: first.json.documents[0].chunks };
    };
    await added('delete-baseline');
    const steps = await deleteWith('delete-baseline', Number.POSITIVE_INFINITY, async () => {});
    // Before the hide, a re-add is simply followed by the delete; from the step after it, the 201 must hold.
    const hidden = steps.indexOf('transition') + 1;
    expect(hidden).toBeGreaterThan(0);
    for (let at = hidden; at <= steps.length; at++) {
      const doc = await added(`delete-readd-${at}`);
      const run = await deleteWith(`delete-readd-${at}`, at, async () => {
        expect((await doc.add()).status).toBe(201);
      });
      await expectWhole(doc.token, doc.documentId, doc.chunks, `re-added before step ${at} (${run[at] ?? 'after'})`);
    }
  }, 240_000);
});
