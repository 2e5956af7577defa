import { randomUUID } from 'node:crypto';
import type { ContextRecord } from '@memgate/core';

/** A minimal valid record; every field can be overridden. */
export function recordFor(overrides: Partial<ContextRecord> = {}): ContextRecord {
  const id = overrides._id ?? `rec-${randomUUID()}`;
  return {
    _id: id,
    kind: 'chunk',
    user_id: 'user-1',
    organization_id: null,
    parent_context_nodes: [],
    children_context_nodes: [],
    context_type: 'resource',
    tags: [],
    source: 'src',
    content: 'some text',
    blob: null,
    indexed: true,
    indexable: true,
    governing_policies: null,
    override_policy: false,
    telemetry_data: {},
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
    scopes: ['internal'],
    metadata: { size: 9, file_name: 'f.txt', doc_type: 'text/plain', modalities: ['text'] },
    corresponding_vector_id: id,
    text: 'some text',
    status: 'indexed',
    tenant: 'user:user-1',
    document_id: 'doc-1',
    attempts: 0,
    ...overrides,
  };
}

/** Every item of a paged listing, following its cursors. */
export async function all(list: (cursor?: string) => Promise<{ items: ContextRecord[]; nextCursor: string | null }>) {
  const items: ContextRecord[] = [];
  let cursor: string | undefined;
  do {
    const page = await list(cursor);
    items.push(...page.items);
    cursor = page.nextCursor ?? undefined;
  } while (cursor);
  return items;
}

/** The ContextRepository port's contract, run by every adapter. Each test uses fresh tenants and owners. */
