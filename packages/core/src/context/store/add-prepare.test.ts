import { describe, expect, it } from 'vitest';
import { createMemoryIndex, createMemoryRepository } from '../../../../../test/support/memory-ports.ts';
import type { Principal } from '../../auth/index.ts';
import type { Embedder } from '../ports.ts';
import { createContextStore } from './index.ts';

const alice: Principal = { userId: 'alice', orgs: [], scopes: new Set(['context:write']) };
const embedder: Embedder = {
  id: 'constant:4',
  dimension: 4,
  embed: async (texts) => texts.map(() => Float32Array.of(1, 0, 0, 0)),
};

describe('add: the index readies its first write while the add reads', () => {
  it('asks the index to prepare once the existence read is sent, before that read answers and before the upsert', async () => {
    const clock = { now: () => new Date('2026-01-01T00:00:00Z') };
    const { repository } = createMemoryRepository(clock);
    const { index } = createMemoryIndex();
    const order: string[] = [];
    // The memory index confirms, so the add reads its documents with the tenant's generation tag.
    const logging = {
      ...repository,
      async getManyWithGenerations(...args: Parameters<typeof repository.getManyWithGenerations>) {
        order.push('read sent');
        const read = await repository.getManyWithGenerations(...args);
        order.push('read answered');
        return read;
      },
    };
    const preparing = {
      ...index,
      prepare: () => order.push('prepare'),
      upsert: (...args: Parameters<typeof index.upsert>) => {
        order.push('upsert');
        return index.upsert(...args);
      },
    };
    const store = createContextStore({ repository: logging, index: preparing, embedder, clock });
    await store.add(alice, { documents: [{ content: 'Thirty days of paid leave.', fileName: 'leave.md' }] });
    expect(order).toEqual(['read sent', 'prepare', 'read answered', 'upsert']);
  });
});
