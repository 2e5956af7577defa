import type { ContextRecord } from '@memgate/core';
import { buildDocument } from '@memgate/core/context/store/records';
import { describe, expect, it } from 'vitest';
import {
  namePartition,
  newestKey,
  ownerPartition,
  recordKey,
  tenantPartition,
  toItem,
  unsettledAttributes,
} from './context-items.ts';
import { TABLE_KEYS } from './table.ts';

const { indexes } = TABLE_KEYS;

/** toItem as first written, with object rest and spread: the item it made, key order included. */
function spreadItem(record: ContextRecord): Record<string, unknown> {
  const order = newestKey(record);
  const { content, ...rest } = record;
  return {
    ...rest,
    ...(content === record.text && record.kind === 'chunk' ? {} : { content }),
    ...recordKey(record._id),
    [indexes.byTenant.partition]: tenantPartition(record.tenant),
    [indexes.byTenant.sort]: order,
    [indexes.byOwner.partition]: ownerPartition(record.user_id),
    [indexes.byOwner.sort]: order,
    ...(record.kind === 'document'
      ? {
          [indexes.documentsByTenant.partition]: tenantPartition(record.tenant),
          [indexes.documentsByTenant.sort]: order,
          [indexes.documentsBySource.partition]: namePartition(record.tenant, record.source),
          [indexes.documentsBySource.sort]: order,
          [indexes.documentsByFileName.partition]: namePartition(record.tenant, record.metadata.file_name),
          [indexes.documentsByFileName.sort]: order,
        }
      : {}),
    ...unsettledAttributes(record.status, record.updatedAt, record._id),
  };
}

describe('toItem', () => {
  it('makes the item spreading the record made, the same keys in the same order, for records of every state', () => {
    const built = buildDocument(
      { content: 'One paragraph.\n\nAnother paragraph that is long enough to be its own chunk. '.repeat(30) },
      {
        ownerId: 'user-1',
        organizationId: 'org-1',
        tenant: 'org:org-1',
        source: 'notes',
        contextType: 'resource',
        scope: 'internal',
        metadata: { size: 3, nested: { a: [1, 'b'] } },
        modalities: ['text'],
        tags: ['t'],
        now: '2026-11-24T11:00:00.000Z',
      },
    );
    const records: ContextRecord[] = [built.document, ...built.chunks];
    expect(built.chunks.length).toBeGreaterThan(1);
    const variants = records.flatMap((record) =>
      (['indexed', 'pending', 'deleting', 'failed'] as const).map((status) => ({ ...record, status })),
    );
    // A chunk whose content is not its text (kept), one read back with a stray attribute, one without content.
    variants.push({ ...(built.chunks[0] as ContextRecord), content: 'other' });
    variants.push({ ...(built.chunks[0] as ContextRecord), legacy: 1, pk: 'stale' } as unknown as ContextRecord);
    const { content: _, ...noContent } = built.document;
    variants.push(noContent as ContextRecord);
    for (const record of variants) {
      const expected = spreadItem(record);
      const item = toItem(record);
      expect(item).toEqual(expected);
      expect(Object.keys(item)).toEqual(Object.keys(expected));
    }
  });
});
