import { createHash } from 'node:crypto';
import type { ContextRecord, NamedDocument, RecordStatus, SearchRecord, TenantKey } from '@memgate/core';
import { TABLE_KEYS } from './table.ts';

const { indexes } = TABLE_KEYS;

/** Every key this module writes starts with `ctx#`, so context items never collide with other items of the table. */
export const RECORD_SORT_KEY = 'ctx';
export const UNSETTLED_PARTITION = 'ctx#unsettled';

export const recordKey = (id: string) => ({ pk: `ctx#${id}`, sk: RECORD_SORT_KEY });
/**
 * A tenant's visibility generation (context-generations.ts): its own sort key, so it can never be a record's item,
 * and no index attributes, so no listing sees it.
 */
export const generationKey = (tenant: TenantKey) => ({ pk: `ctx#generation#${tenant}`, sk: 'generation' });
export const tenantPartition = (tenant: TenantKey) => `ctx#${tenant}`;
export const ownerPartition = (userId: string) => `ctx#owner#${userId}`;
/**
 * A tenant's partition of documentsBySource or documentsByFileName: a name is any string a user chose (up to the
 * request's size), so it is hashed to keep the key bounded (a partition key holds at most 2 KB). Readers compare the
 * names themselves, so a collision could only cost a read.
 */
export const namePartition = (tenant: TenantKey, name: string) =>
  `ctx#${tenant}#name#${createHash('sha256').update(name).digest('base64url')}`;
/** Newest-first order inside a partition; the id breaks ties between records created at the same instant. */
export const newestKey = (record: Pick<ContextRecord, 'createdAt' | '_id'>) => `${record.createdAt}#${record._id}`;
export const unsettledKey = (updatedAt: string, id: string) => `${updatedAt}#${id}`;

/**
 * Whether a record is on the cleanup's work list: `pending` and `deleting` are, `indexed` and `failed` are not (the
 * cleanup gave up on a failed record; reading it again on every run would cost a read per run forever).
 */
export const isUnsettled = (status: RecordStatus) => status === 'pending' || status === 'deleting';

/** The attributes that put an item in the unsettled index: present exactly while the record is unsettled. */
export function unsettledAttributes(status: RecordStatus, updatedAt: string, id: string) {
  return !isUnsettled(status)
    ? undefined
    : { [indexes.unsettled.partition]: UNSETTLED_PARTITION, [indexes.unsettled.sort]: unsettledKey(updatedAt, id) };
}

/**
 * The attributes that put a document in documentsBySource and documentsByFileName, `order` its newestKey. A name
 * that is absent (no row written by the API lacks one) is keyed as the empty name, which no delete can ask for.
 */
export function nameAttributes(tenant: TenantKey, source: unknown, fileName: unknown, order: string) {
  return {
    [indexes.documentsBySource.partition]: namePartition(tenant, String(source ?? '')),
    [indexes.documentsBySource.sort]: order,
    [indexes.documentsByFileName.partition]: namePartition(tenant, String(fileName ?? '')),
    [indexes.documentsByFileName.sort]: order,
  };
}

/**
 * The DynamoDB item of a record: the record's own fields plus keys for the table and its sparse indexes. Built by
 * assignment, in the order (and with the overrides) of spreading them: object rest and spread with computed keys cost
 * ~15 us a record, as much as marshalling it (context-items.test.ts compares the two).
 */
export function toItem(record: ContextRecord): Record<string, unknown> {
  const order = newestKey(record);
  const item: Record<string, unknown> = {};
  const fields = record as unknown as Record<string, unknown>;
  for (const key of Object.keys(fields)) if (key !== 'content') item[key] = fields[key];
  // A chunk's content is its text: stored once, restored on read (halves the item size of a chunk).
  if (!(record.content === record.text && record.kind === 'chunk')) item.content = record.content;
  Object.assign(item, recordKey(record._id));
  item[indexes.byTenant.partition] = tenantPartition(record.tenant);
  item[indexes.byTenant.sort] = order;
  item[indexes.byOwner.partition] = ownerPartition(record.user_id);
  item[indexes.byOwner.sort] = order;
  if (record.kind === 'document') {
    item[indexes.documentsByTenant.partition] = tenantPartition(record.tenant);
    item[indexes.documentsByTenant.sort] = order;
    Object.assign(item, nameAttributes(record.tenant, record.source, record.metadata.file_name, order));
  }
  Object.assign(item, unsettledAttributes(record.status, record.updatedAt, record._id));
  return item;
}

/**
 * The attributes of SearchRecord as a projection. A chunk hit needs its text, source and file name besides what
 * visibility reads; its other fields (the metadata map, policies, telemetry, the index keys) are most of the item.
 * Every name goes through a placeholder: several (`status`, `source`, `text`) are DynamoDB reserved words.
 */
export const SEARCH_PROJECTION = {
  ProjectionExpression: '#id, #kind, #status, #tenant, #document, #children, #text, #source, #metadata.#fileName',
  ExpressionAttributeNames: {
    '#id': '_id',
    '#kind': 'kind',
    '#status': 'status',
    '#tenant': 'tenant',
    '#document': 'document_id',
    '#children': 'children_context_nodes',
    '#text': 'text',
    '#source': 'source',
    '#metadata': 'metadata',
    '#fileName': 'file_name',
  },
} as const satisfies {
  ProjectionExpression: string;
  ExpressionAttributeNames: Record<string, keyof SearchRecord | 'file_name'>;
};

const KEY_ATTRIBUTES = new Set<string>([
  TABLE_KEYS.partition,
  TABLE_KEYS.sort,
  ...Object.values(indexes).flatMap((index) => [index.partition, index.sort]),
]);

/** The record an item stores, without the table's key attributes. */
export function fromItem(item: Record<string, unknown>): ContextRecord {
  const record: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(item)) if (!KEY_ATTRIBUTES.has(name)) record[name] = value;
  if (!('content' in record)) record.content = record.text;
  return record as unknown as ContextRecord;
}

/** A NamedDocument from an entry of documentNamesByTenant (which projects these attributes and the keys only). */
export function namedDocumentOf(item: Record<string, unknown>): NamedDocument {
  const metadata = (item.metadata ?? {}) as { file_name?: unknown };
  return {
    _id: item._id as string,
    user_id: item.user_id as string,
    status: item.status as NamedDocument['status'],
    tenant: item.tenant as NamedDocument['tenant'],
    source: item.source as string,
    metadata: { file_name: metadata.file_name as string },
  };
}
