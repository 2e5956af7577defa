import type { VectorFilter, VectorMetadata } from '@memgate/core';

/** Posting-list key of one attribute value. */
export function postingKey(field: string, value: string): string {
  return `${field}\u0000${value}`;
}

/** Every (attribute, value) pair a record can be filtered by: one per scalar, one per array element. */
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

/** Equality on scalars, membership on arrays (`scopes`, `tags`); every entry must hold. */
export function matchesFilter(metadata: VectorMetadata, entries: readonly [keyof VectorMetadata, string][]): boolean {
  for (const [field, expected] of entries) {
    const actual = metadata[field];
    if (Array.isArray(actual) ? !actual.includes(expected) : actual !== expected) return false;
  }
  return true;
}
