import { BatchWriteItemCommand } from '@aws-sdk/client-dynamodb';
import { BatchWriteCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { type ContextRecord, tenantOf } from '@memgate/core';
import { buildDocument } from '@memgate/core/context/store/records';
import { afterAll, describe, expect, it } from 'vitest';
import { createDocumentClient } from './client.ts';
import { toItem } from './context-items.ts';
import { itemAttributes } from './item-attributes.ts';

/** A client whose requests never leave the process: each call's HTTP body is kept, and it answers nothing to do. */
function capturingClient(): { client: DynamoDBDocumentClient; bodies: string[] } {
  const client = createDocumentClient({ endpoint: 'http://127.0.0.1:9' });
  const bodies: string[] = [];
  client.middlewareStack.add(
    () => async (args) => {
      const { body } = args.request as { body: string | Uint8Array };
      bodies.push(typeof body === 'string' ? body : Buffer.from(body).toString('utf8'));
      return { output: { $metadata: {}, UnprocessedItems: {} }, response: {} } as never;
    },
    { step: 'finalizeRequest', priority: 'low', name: 'captureRequest' },
  );
  return { client, bodies };
}

const { client, bodies } = capturingClient();
afterAll(() => client.destroy());

const context = (metadata: Record<string, unknown>, organizationId: string | null) => ({
  ownerId: 'user-1',
  organizationId,
  tenant: tenantOf('user-1', organizationId),
  source: undefined,
  contextType: 'resource' as const,
  scope: 'internal' as const,
  metadata,
  modalities: ['text'],
  tags: ['a', ''],
  now: '2026-11-24T11:00:00.000Z',
});

/** Records of every shape an add writes, and metadata of every kind a caller may send. */
function records(): ContextRecord[] {
  const metadata = [
    {},
    { size: 12, nested: { deep: [1, 'two', null, { three: true }], empty: {} }, list: [] },
    { gone: undefined, holes: [undefined, 'x'], mixed: ['a', 2], text: '', unicode: 'é 東京 😀 "q" \\ \n' },
  ];
  return metadata.flatMap((given, i) => {
    const built = buildDocument(
      { content: `First paragraph ${i} with "quotes".\n\nSecond one, ünïcode 😀.`, fileName: i === 1 ? '' : `f${i}` },
      context(given, i === 2 ? 'org-1' : null),
    );
    if (i === 1) built.document.status = 'pending'; // with the unsettled index's attributes
    if (i === 2) built.document.governing_policies = ['p1', 'p2'];
    // Top-level lists that are not all strings (a caller's hole or a stray value): the client's marshalling decides.
    if (i === 2) (built.chunks[0] as ContextRecord).tags = ['a', undefined, 'b', 3] as unknown as string[];
    // biome-ignore lint/suspicious/noSparseArray: a hole, as a sparse array from a caller would have
    if (i === 1) (built.chunks[0] as ContextRecord).scopes = [, 'internal'] as unknown as string[];
    return [built.document, ...built.chunks];
  });
}

describe('itemAttributes', () => {
  it('sends the very request bytes the document client sends for the same items', async () => {
    const items = records().map(toItem);
    expect(items.length).toBe(6);
    await client.send(new BatchWriteCommand({ RequestItems: { t: items.map((Item) => ({ PutRequest: { Item } })) } }));
    const viaDocumentClient = bodies.at(-1);
    const RequestItems = { t: items.map((item) => ({ PutRequest: { Item: itemAttributes(item) } })) };
    await client.send(new BatchWriteItemCommand({ RequestItems }) as never);
    expect(bodies.at(-1)).toBe(viaDocumentClient);
    expect(viaDocumentClient).toContain('"L":[{"S":"a"},{"S":""}]'); // tags: a list of strings built here
  });

  it('refuses what the document client refuses (a number DynamoDB cannot hold)', () => {
    const [record] = records();
    const item = toItem({ ...(record as ContextRecord), metadata: { ...(record as ContextRecord).metadata, n: NaN } });
    expect(() => itemAttributes(item)).toThrow(/NaN/);
  });
});
