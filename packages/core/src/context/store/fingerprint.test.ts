import { describe, expect, it } from 'vitest';
import type { VectorItem } from '../ports.ts';
import type { ContextRecord } from '../record.ts';
import { vectorShapesOf } from './add-vectors.ts';
import type { ContextStoreDeps } from './deps.ts';
import { fingerprintOf } from './fingerprint.ts';
import { type AddContext, buildDocument } from './records.ts';
import { documentAbout, embedder } from './test-processes.ts';

const ctx: AddContext = {
  ownerId: 'alice',
  organizationId: null,
  tenant: 'user:alice',
  source: 'wiki',
  contextType: 'resource',
  scope: 'internal',
  metadata: {},
  modalities: ['text'],
  tags: [],
  now: '2026-11-24T00:00:00.000Z',
};
const deps = { embedder } as ContextStoreDeps;
const content = documentAbout('puffin', 2);

async function fingerprint(
  change: { ctx?: Partial<AddContext>; lastModified?: string; chunks?: (chunks: ContextRecord[]) => void } = {},
  items?: (items: VectorItem[]) => void,
  embedderId = embedder.id,
) {
  const { document, chunks } = buildDocument(
    { content, fileName: 'p.txt', ...(change.lastModified ? { lastModified: change.lastModified } : {}) },
    { ...ctx, ...change.ctx },
  );
  change.chunks?.(chunks);
  const shapes = await vectorShapesOf(deps, chunks, false);
  items?.(shapes.items);
  return fingerprintOf({ ...embedder, id: embedderId }, document, chunks, shapes.items);
}

describe('fingerprintOf', () => {
  it('is the same for the same add, whatever its time; differs with anything a re-add would store', async () => {
    const same = await fingerprint();
    expect(await fingerprint({ ctx: { now: '2030-01-01T00:00:00.000Z' } })).toBe(same);
    const changed = await Promise.all([
      fingerprint({ ctx: { tags: ['seabird'] } }),
      fingerprint({ ctx: { metadata: { author: 'ann' } } }),
      fingerprint({ ctx: { scope: 'external' } }),
      fingerprint({ ctx: { contextType: 'instruction' } }),
      fingerprint({ lastModified: '2026-01-01T00:00:00.000Z' }),
      // A chunk boundary moved (another chunker): the same text in all.
      fingerprint({
        chunks: (chunks) => {
          const [a, b] = chunks as [ContextRecord, ContextRecord];
          a.text = a.content = `${a.text}p`;
          b.text = b.content = b.text.slice(1);
        },
      }),
      // Its own terms, its neighbours (another document beside it in the add), a weight, the embedder.
      fingerprint({}, (items) => {
        const terms = items[0]?.terms;
        if (terms) terms.values[0] = (terms.values[0] ?? 0) + 1e-12;
      }),
      fingerprint({}, (items) => {
        items[1]?.chain?.neighbours.splice(0, 1, 'doc_other.00000');
      }),
      fingerprint({}, (items) => {
        items[0]?.chain?.weights.push(0.5);
      }),
      fingerprint({}, undefined, 'another-embedder:64'),
    ]);
    expect(new Set([same, ...changed]).size).toBe(changed.length + 1);
  });

  it('is the same from the sizes of the neighbours’ terms as from the terms themselves (stored fingerprints hold)', async () => {
    const { document, chunks } = buildDocument({ content: documentAbout('puffin', 4), fileName: 'p.txt' }, ctx);
    const shapes = await vectorShapesOf(deps, chunks, false);
    const whole = chunks.map((_, i) => shapes.itemAt(i, new Float32Array(0)));
    expect(whole.filter((item) => item.contextTerms).length).toBe(chunks.length);
    expect(fingerprintOf(embedder, document, chunks, shapes.items, shapes.contextSizes)).toBe(
      fingerprintOf(embedder, document, chunks, whole),
    );
  });
});
