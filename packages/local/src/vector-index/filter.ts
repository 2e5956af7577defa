import type { VectorFilter, VectorMetadata } from '@memgate/core';

/** Posting-list key of one attribute value. */
export function postingKey(field: string, value: string): string {
  return `${field}\u0000${value}`;
}

/**
 * Every (attribute, value) pair a record can be filtered by: one per scalar, one per array element. A filter entry
 * matches exactly the slots in its posting list: equality on scalars, membership on arrays (`scopes`, `tags`).
 */
export function postingKeysOf(metadata: VectorMetadata): string[] {
  const keys = new Set<string>();
  for (const [field, value] of Object.entries(metadata)) {
    if (Array.isArray(value)) for (const item of value) keys.add(postingKey(field, String(item)));
    else keys.add(postingKey(field, String(value)));
  }
  return [...keys];
}

/** The defined entries of a filter; `undefined` values narrow nothing. */
export function filterEntries(filter: VectorFilter | undefined): [keyof VectorMetadata, string][] {
  if (!filter) return [];
  return (Object.entries(filter) as [keyof VectorMetadata, string | undefined][]).filter(
    (entry): entry is [keyof VectorMetadata, string] => entry[1] !== undefined,
  );
}
