import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalVectorIndex, type LocalVectorIndex } from '../../packages/local/src/vector-index/index.ts';
import { createContextHarness } from '../support/context-app.ts';
import { tokenFor } from '../support/tokens.ts';

// End to end on the real local parts: DynamoDB Local, the lexical embedder and the embedded usearch index.
const band = { similarity_threshold: 1, minimum_similarity_threshold: 0 };
let dir: string;
let index: LocalVectorIndex;
let h: Awaited<ReturnType<typeof createContextHarness>>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'memgate-ctx-'));
  index = await createLocalVectorIndex({ dir });
  h = await createContextHarness(index);
});

afterAll(async () => {
  await index.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('context store on the local vector index', () => {
  it('ranks the document that holds a phrase first, within the band', async () => {
    const token = await tokenFor('olga', { scope: 'context:read context:write context:delete' });
    await h.call('POST', 'add', token, {
      documents: [
        { content: 'The lighthouse keeper polished the brass lens every evening before dusk.', fileName: 'sea.txt' },
        { content: 'Quarterly revenue grew because enterprise subscriptions renewed early.', fileName: 'finance.txt' },
      ],
    });
    const { status, json } = await h.call('POST', 'search', token, {
      query: 'keeper polished the brass lens',
      similarity_threshold: 1,
      minimum_similarity_threshold: 0.2,
    });
    expect(status).toBe(202);
    expect(json.results[0]).toMatchObject({ fileName: 'sea.txt' });
    expect(json.results.every((r: { score: number }) => r.score >= 0.2 && r.score <= 1)).toBe(true);
  });

  it('never shows a stale vector whose record is gone', async () => {
    const token = await tokenFor('pete', { scope: 'context:read context:write' });
    const added = await h.call('POST', 'add', token, { documents: [{ content: 'ghost vector text', fileName: 'g' }] });
    const document = await h.repository.get(added.json.contextIds[0]);
    // Rows vanish while the vector stays (as after a crash between the two deletes). Every path that removes rows
    // hid them first and bumped the tenant's generation, so what the add confirmed in the index no longer holds.
    await h.repository.bumpGenerations([document?.tenant ?? 'user:pete']);
    await h.repository.deleteMany([...(document?.children_context_nodes ?? []), added.json.contextIds[0]]);
    expect((await h.call('POST', 'search', token, { query: 'ghost vector text', ...band })).json.results).toEqual([]);
  });
});
