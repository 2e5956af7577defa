import { invalid } from '@memgate/core';
import { TABLE_KEYS } from './table.ts';

/**
 * Pagination cursors are a Query's LastEvaluatedKey, base64url JSON. They come back from callers, so a cursor is
 * input: DynamoDB answers a start key of the wrong shape with a ValidationException (a 500 if let through), and a
 * start key is the only part of a Query the caller writes. `decodeCursor` therefore accepts exactly the key a
 * listing of `partition` in `index` returns: the table's key and the index's key, all non-empty strings within
 * DynamoDB's key sizes, and the index partition equal to the one being listed. A cursor of another tenant, index or
 * listing is refused, so it can never start a listing anywhere but where its own listing left off.
 */

/** DynamoDB's limits on key attribute values (UTF-8 bytes). */
const MAX_PARTITION_KEY_BYTES = 2048;
const MAX_SORT_KEY_BYTES = 1024;

export interface CursorScope {
  /** The index the listing queries. */
  index: { partition: string; sort: string };
  /** The index partition the listing reads. */
  partition: string;
}

/** Encodes a LastEvaluatedKey as an opaque cursor; null at the end of the listing. */
export function encodeCursor(key: Record<string, unknown> | undefined): string | null {
  return key ? Buffer.from(JSON.stringify(key)).toString('base64url') : null;
}

function isKeyValue(value: unknown, maxBytes: number): value is string {
  return typeof value === 'string' && value.length > 0 && Buffer.byteLength(value, 'utf8') <= maxBytes;
}

function keyOf(cursor: string): Record<string, unknown> | undefined {
  try {
    const key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    if (typeof key === 'object' && key !== null && !Array.isArray(key)) return key as Record<string, unknown>;
  } catch {
    // not JSON: not ours
  }
  return undefined;
}

/** The start key of a cursor this listing issued; anything else (tampered, truncated, foreign) is a 400. */
export function decodeCursor(cursor: string | undefined, scope: CursorScope): Record<string, unknown> | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const key = keyOf(cursor);
  const expected: [string, number][] = [
    [TABLE_KEYS.partition, MAX_PARTITION_KEY_BYTES],
    [TABLE_KEYS.sort, MAX_SORT_KEY_BYTES],
    [scope.index.partition, MAX_PARTITION_KEY_BYTES],
    [scope.index.sort, MAX_SORT_KEY_BYTES],
  ];
  if (
    key !== undefined &&
    Object.keys(key).length === expected.length &&
    expected.every(([name, maxBytes]) => Object.hasOwn(key, name) && isKeyValue(key[name], maxBytes)) &&
    key[scope.index.partition] === scope.partition
  ) {
    return key;
  }
  throw invalid('cursor is not a nextCursor this listing returned', 'cursor');
}
