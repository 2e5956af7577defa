import type { VectorIndex } from '@memgate/core';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestTable } from '../support/dynamo.ts';
import { type DynamoFaults, withFaults } from './dynamo-faults.ts';
import { ALL_SCOPES, type SecurityHarness, startSecurityHarness, tokenFor } from './harness.ts';

// Faults under the context store, over HTTP on DynamoDB Local (issue 8): DynamoDB throttling that the SDK absorbs
// or that outlasts it, UnprocessedItems, and a vector store that times out at each step of add, delete and search.
// Expected: a clear error in the area format, nothing half-visible, nothing acknowledged lost, and the cleanup
// repairs what a failure left. (Immediate vector-store failures at each step: packages/core/src/context/store and
// test/context/http.test.ts.)

let h: SecurityHarness;
let faults: DynamoFaults;
/**
 * A vector-store call that hangs until the test makes it time out: `reached` resolves once the call is in flight,
 * `fire()` makes it fail as a client-side timeout would. No wall clock: the test decides when the deadline passes.
 */
interface PendingTimeout {
  reached: Promise<void>;
  fire(): void;
}
const hanging: Partial<Record<keyof VectorIndex, { entered: () => void; timedOut: Promise<void> }>> = {};

/** The next calls of `method` hang until the returned timeout is fired. */
function hangNext(method: keyof VectorIndex): PendingTimeout {
  let entered = () => {};
  let fire = () => {};
  const reached = new Promise<void>((resolve) => {
    entered = resolve;
  });
  const timedOut = new Promise<void>((resolve) => {
    fire = resolve;
  });
  hanging[method] = { entered, timedOut };
  return { reached, fire };
}
let token: string;
const band = { similarity_threshold: 1, minimum_similarity_threshold: 0.05 };
// Long enough for several chunks, so batches really split.
// Operations by role, whichever of them the repository uses for it (PartiQL batches, transactions, single updates).
const SETTLING = ['BatchExecuteStatement', 'ExecuteStatement', 'UpdateItem', 'TransactWriteItems'];
const ROW_WRITES = ['BatchWriteItem', 'PutItem', 'DeleteItem'];
const body = (word: string) =>
  Array.from({ length: 120 }, (_, i) => `Paragraph ${i} tells the ${word} story, part ${i}.`).join(' ');

function timingOut(inner: VectorIndex): VectorIndex {
  type Methods = Required<VectorIndex>;
  const wrap = <K extends keyof Methods>(method: K) =>
    (async (...args: Parameters<Methods[K]>) => {
      const hang = hanging[method];
      if (hang !== undefined) {
        hang.entered();
        await hang.timedOut;
        throw new Error(`vector store ${method} timed out`);
      }
      return (inner[method] as (...a: Parameters<Methods[K]>) => unknown)(...args);
    }) as unknown as Methods[K];
  return {
    upsert: wrap('upsert'),
    query: wrap('query'),
    delete: wrap('delete'),
    listIds: wrap('listIds'),
    listNamespaces: wrap('listNamespaces'),
  };
}

afterEach(() => {
  faults.transient = {};
  faults.persistent = new Set();
  faults.unprocessed = 0;
  for (const method of Object.keys(hanging) as (keyof VectorIndex)[]) delete hanging[method];
});

beforeAll(async () => {
  const faulty = withFaults(await createTestTable('faults'));
  faults = faulty.faults;
  h = await startSecurityHarness({ table: faulty.table, wrapIndex: timingOut });
  token = await tokenFor('fay', { orgs: ['acme'], scope: ALL_SCOPES });
});

// `tags`: a re-add that changes the document, which writes it again (an identical one writes nothing).
const add = (word: string, tags?: string[]) =>
  h.request('POST', '/api/v1/context/add', {
    token,
    body: { documents: [{ content: body(word), fileName: `${word}.txt` }], source: word, tags },
  });
const search = async (word: string) =>
  JSON.parse(
    (await h.request('POST', '/api/v1/context/search', { token, body: { query: `${word} story`, ...band } })).text,
  ).results as { fileName: string; documentId: string }[];
const records = async () =>
  JSON.parse((await h.request('GET', '/api/v1/context/view?limit=1000', { token })).text).context as {
    _id: string;
    children_context_nodes: string[];
  }[];
function expectAcknowledged(response: { status: number; text: string }) {
  expect(response.status, response.text).toBe(201);
}
/** Either the whole document (record and every chunk) is visible, or nothing of it. */
async function expectWholeOrNothing(word: string, whole: boolean) {
  const docs = JSON.parse((await h.request('GET', '/api/v1/context/view/docs?limit=1000', { token })).text)
    .documents as { contextId: string; fileName: string; chunks: number }[];
  const summary = docs.find((entry) => entry.fileName === `${word}.txt`);
  const hits = (await search(word)).filter((hit) => hit.fileName === `${word}.txt`);
  if (!whole) {
    expect(summary, word).toBeUndefined();
    expect(hits, word).toEqual([]);
    return;
  }
  const all = await records();
  const document = all.find((record) => record._id === summary?.contextId);
  const ids = new Set(all.map((record) => record._id));
  expect(summary?.chunks, word).toBeGreaterThan(1);
  expect(document?.children_context_nodes).toHaveLength(summary?.chunks as number);
  expect(document?.children_context_nodes.every((id) => ids.has(id))).toBe(true);
  expect(hits.length).toBeGreaterThan(0);
}
function expectContextError(response: { status: number; text: string }, status: number, mentions?: string) {
  expect(response.status, response.text).toBe(status);
  const error = JSON.parse(response.text);
  expect(error).toEqual({ response: expect.any(String), error: 'internal_error' });
  if (mentions) expect(error.response).toContain(mentions);
}

describe('DynamoDB throttling and UnprocessedItems', () => {
  it('throttling the SDK retries is invisible: the add and the reads succeed', async () => {
    // BatchExecuteStatement (one of SETTLING): also a new document's row, a PartiQL INSERT.
    faults.transient = { BatchWriteItem: 2, BatchGetItem: 1, Query: 1 };
    for (const operation of SETTLING) faults.transient[operation] = 2;
    expectAcknowledged(await add('tapir'));
    await expectWholeOrNothing('tapir', true);
    // Every throttle on a path the add and the reads took was met and retried.
    expect(faults.transient).toMatchObject({ BatchWriteItem: 0, BatchGetItem: 0, Query: 0, BatchExecuteStatement: 0 });
    expect(faults.injected.transient).toBeGreaterThanOrEqual(6);
  });

  it('UnprocessedItems are retried until every row is written, and every row deleted', async () => {
    const before = await h.itemCount();
    faults.unprocessed = 6;
    expectAcknowledged(await add('okapi'));
    await expectWholeOrNothing('okapi', true);
    faults.unprocessed = 6;
    expect((await h.request('POST', '/api/v1/context/delete', { token, body: { source: 'okapi' } })).status).toBe(204);
    // The add's rows (the delete's removals are conditional PartiQL deletes and transactions, not BatchWriteItem).
    expect(faults.injected.unprocessed).toBeGreaterThanOrEqual(2);
    // The hidden document row stays until the cleanup (an add that read it absent must find it).
    expect(await h.itemCount()).toBe(before + 1);
    await h.cleanup();
    expect(await h.itemCount()).toBe(before);
  });

  it('throttling that outlasts the retries while writing rows: 500, nothing visible; the retry succeeds once', async () => {
    faults.persistent = new Set(ROW_WRITES);
    expectContextError(await add('quokka'), 500);
    faults.persistent = new Set();
    await expectWholeOrNothing('quokka', false);
    expectAcknowledged(await add('quokka'));
    await h.cleanup();
    await expectWholeOrNothing('quokka', true);
    const docs = await h.request('GET', '/api/v1/context/view/docs?limit=1000', { token });
    expect(docs.text.split('"quokka.txt"')).toHaveLength(2);
  });

  it('throttling while writing the document rows: 500, nothing visible; the cleanup removes the rest', async () => {
    const before = await h.itemCount();
    const vectorsBefore = h.vectorIds().length;
    faults.persistent = new Set(['BatchExecuteStatement']); // a new document's row: a PartiQL INSERT in a batch
    expectContextError(await add('numbat'), 500);
    faults.persistent = new Set();
    await expectWholeOrNothing('numbat', false);
    expect(await h.itemCount()).toBeGreaterThan(before);
    await h.cleanup();
    await expectWholeOrNothing('numbat', false);
    expect(await h.itemCount()).toBe(before);
    expect(h.vectorIds().length).toBe(vectorsBefore);
    expectAcknowledged(await add('numbat'));
    await expectWholeOrNothing('numbat', true);
  });

  it('throttling while settling a re-add: 500, nothing visible; the cleanup then shows the whole document', async () => {
    expectAcknowledged(await add('bilby'));
    faults.persistent = new Set(SETTLING);
    expectContextError(await add('bilby', ['revised']), 500);
    faults.persistent = new Set();
    await expectWholeOrNothing('bilby', false);
    await h.cleanup();
    await expectWholeOrNothing('bilby', true);
  });

  it('throttling while hiding a deletion: 500 and the document stays whole; after hiding: 204 and the cleanup ends it', async () => {
    // Its own document: no test depends on another's data.
    expectAcknowledged(await add('tamarin'));
    faults.persistent = new Set(SETTLING);
    expectContextError(await h.request('POST', '/api/v1/context/delete', { token, body: { source: 'tamarin' } }), 500);
    faults.persistent = new Set();
    await expectWholeOrNothing('tamarin', true);

    const before = await h.itemCount();
    // A document's chunk rows go in transactions guarded by the document's `deleting` status.
    faults.persistent = new Set([...ROW_WRITES, 'TransactWriteItems']);
    expect((await h.request('POST', '/api/v1/context/delete', { token, body: { source: 'tamarin' } })).status).toBe(
      204,
    );
    faults.persistent = new Set();
    await expectWholeOrNothing('tamarin', false);
    expect(await h.itemCount()).toBe(before);
    await h.cleanup();
    expect(await h.itemCount()).toBeLessThan(before);
    await expectWholeOrNothing('tamarin', false);
  });
});

describe('a vector store that times out', () => {
  it('while indexing an add: 500 naming the vector store, nothing visible; the cleanup removes the rows', async () => {
    const before = await h.itemCount();
    const timeout = hangNext('upsert');
    const response = add('wombat');
    await timeout.reached;
    timeout.fire();
    expectContextError(await response, 500, 'vector store');
    delete hanging.upsert;
    await expectWholeOrNothing('wombat', false);
    await h.cleanup();
    await expectWholeOrNothing('wombat', false);
    // Its chunk rows have no vector for the orphan sweep to find them by: hidden, until the retry writes them again.
    const retried = await add('wombat');
    expectAcknowledged(retried);
    await expectWholeOrNothing('wombat', true);
    expect(await h.itemCount()).toBe(before + 1 + JSON.parse(retried.text).documents[0].chunks);
  });

  it('while indexing a re-add: 500 naming the vector store, nothing visible; the cleanup indexes it', async () => {
    expectAcknowledged(await add('wallaby'));
    const timeout = hangNext('upsert');
    const response = add('wallaby', ['revised']);
    await timeout.reached;
    timeout.fire();
    expectContextError(await response, 500, 'vector store');
    delete hanging.upsert;
    await expectWholeOrNothing('wallaby', false);
    await h.cleanup();
    await expectWholeOrNothing('wallaby', true);
  });

  it('while removing vectors of a delete: 204, hidden at once; the cleanup removes vectors and rows', async () => {
    expectAcknowledged(await add('dingo'));
    const vectorsBefore = h.vectorIds().length;
    const timeout = hangNext('delete');
    const response = h.request('POST', '/api/v1/context/delete', { token, body: { source: 'dingo' } });
    await timeout.reached;
    timeout.fire();
    expect((await response).status).toBe(204);
    delete hanging.delete;
    await expectWholeOrNothing('dingo', false);
    await h.cleanup();
    expect(h.vectorIds().length).toBeLessThan(vectorsBefore);
    await expectWholeOrNothing('dingo', false);
  });

  it('while searching: 500 in the area format, and nothing changes', async () => {
    const before = await h.itemCount();
    const timeout = hangNext('query');
    const pending = h.request('POST', '/api/v1/context/search', { token, body: { query: 'story', ...band } });
    await timeout.reached;
    timeout.fire();
    const res = await pending;
    delete hanging.query;
    expectContextError(res, 500);
    expect(await h.itemCount()).toBe(before);
  });

  it('nothing acknowledged is lost: documents answered 201 under throttling and UnprocessedItems stay whole', async () => {
    // BatchExecuteStatement (one of SETTLING): also a new document's row, a PartiQL INSERT.
    faults.transient = { BatchWriteItem: 2, BatchGetItem: 1, Query: 1 };
    for (const operation of SETTLING) faults.transient[operation] = 2;
    expectAcknowledged(await add('gecko'));
    faults.transient = {};
    faults.unprocessed = 4;
    expectAcknowledged(await add('ibis'));
    faults.unprocessed = 0;
    expectAcknowledged(await add('lemur'));
    // A cleanup run in between changes none of them.
    await h.cleanup();
    for (const word of ['gecko', 'ibis', 'lemur']) await expectWholeOrNothing(word, true);
    console.info(`faults injected: ${JSON.stringify(faults.injected)}`);
  });
});
