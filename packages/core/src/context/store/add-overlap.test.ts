import { describe, expect, it } from 'vitest';
import { createMemoryIndex, createMemoryRepository } from '../../../../../test/support/memory-ports.ts';
import type { Principal } from '../../auth/index.ts';
import type { Embedder } from '../ports.ts';
import { createContextStore } from './index.ts';

const alice: Principal = { userId: 'alice', orgs: [], scopes: new Set(['context:write', 'context:read']) };

describe('add: its DynamoDB requests leave before the CPU that follows them', () => {
  it('sends the chunk rows before embedding starts, and embeds before those rows are answered', async () => {
    const clock = { now: () => new Date('2026-01-01T00:00:00Z') };
    const { repository } = createMemoryRepository(clock);
    const { index } = createMemoryIndex();
    const order: string[] = [];
    let embeddingStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      embeddingStarted = resolve;
    });
    const embedder: Embedder = {
      id: 'constant:4',
      dimension: 4,
      async embed(texts) {
        order.push('embedding');
        embeddingStarted();
        return texts.map(() => Float32Array.of(1, 0, 0, 0));
      },
    };
    // The rows' write answers only once embedding has started: it stands for DynamoDB writing them meanwhile.
    const slowRows = {
      ...repository,
      async putMany(records: Parameters<typeof repository.putMany>[0]) {
        const chunks = records.every((record) => record.kind === 'chunk');
        if (chunks) order.push('chunk rows sent');
        await started;
        await repository.putMany(records);
        if (chunks) order.push('chunk rows answered');
      },
    };
    const store = createContextStore({ repository: slowRows, index, embedder, clock });
    const added = await store.add(alice, {
      documents: [{ content: 'Thirty days of paid leave.', fileName: 'leave.md' }],
    });

    expect(order).toEqual(['chunk rows sent', 'embedding', 'chunk rows answered']);
    // And the add is whole: a search finds it.
    const hits = await store.search(alice, {
      query: 'paid leave',
      similarity_threshold: 1,
      minimum_similarity_threshold: 0,
    });
    expect(hits.map((hit) => hit.documentId)).toContain(added.contextIds[0]);
  });

  it('reports a failed existence read as the add failing, not as an unhandled rejection', async () => {
    const clock = { now: () => new Date('2026-01-01T00:00:00Z') };
    const { repository } = createMemoryRepository(clock);
    const { index } = createMemoryIndex();
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      // Fails within the turn the add gives the read to leave (a refused request, a client-side check).
      const failing = {
        ...repository,
        getManyWithGenerations: () => Promise.reject(new Error('DynamoDB refused the read')),
      };
      const embedder: Embedder = {
        id: 'constant:4',
        dimension: 4,
        embed: async (texts) => texts.map(() => Float32Array.of(1, 0, 0, 0)),
      };
      const store = createContextStore({ repository: failing, index, embedder, clock });
      await expect(
        store.add(alice, { documents: [{ content: 'Thirty days of paid leave.', fileName: 'leave.md' }] }),
      ).rejects.toThrow('DynamoDB refused the read');
      // Node reports an unhandled rejection after the microtasks of the turn it happened in.
      await new Promise((resolve) => setImmediate(resolve));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});
