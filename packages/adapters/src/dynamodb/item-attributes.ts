import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { DOCUMENT_MARSHALL_OPTIONS } from './client.ts';

/** How the document client marshals one attribute of an item it writes (lib-dynamodb: each one on its own). */
const ATTRIBUTE_OPTIONS = { ...DOCUMENT_MARSHALL_OPTIONS, convertTopLevelContainer: true } as const;

/**
 * One attribute's value as the document client would send it, or undefined where it drops the attribute. Strings,
 * booleans, null and lists of strings (most of a context record: ids, text, scopes, children) are built here;
 * anything else (numbers, maps, binary, sets) goes through util-dynamodb's `marshall` with the client's options, so
 * its errors and edge cases are the client's.
 */
function attributeOf(value: unknown): AttributeValue | undefined {
  if (typeof value === 'string') return { S: value };
  if (typeof value === 'boolean') return { BOOL: value };
  if (value === null) return { NULL: true };
  if (value === undefined || typeof value === 'function') return undefined;
  if (Array.isArray(value)) {
    const list: AttributeValue[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i]; // a hole reads undefined: the client's marshalling decides
      if (typeof item !== 'string') return marshall(value, ATTRIBUTE_OPTIONS) as AttributeValue;
      list[i] = { S: item };
    }
    return { L: list };
  }
  return marshall(value, ATTRIBUTE_OPTIONS) as AttributeValue;
}

/**
 * An item as the attribute values the document client would make of it (BatchWrite's `Item`), for a hot path that
 * sends rows through the low-level command: lib-dynamodb's generic walk of each item was ~15% of the SDK's CPU per
 * row written (item-attributes.test.ts compares the two on records of every shape).
 */
export function itemAttributes(item: Record<string, unknown>): Record<string, AttributeValue> {
  // Made whole by Object.fromEntries: added one computed key at a time, an object of a row's ~30 attributes turned
  // into a hash table (V8 allows a dozen such properties outside the object), ~1.3 KB a row held through the write.
  const attributes: [string, AttributeValue][] = [];
  for (const key of Object.keys(item)) {
    const value = attributeOf(item[key]);
    if (value !== undefined) attributes.push([key, value]);
  }
  return Object.fromEntries(attributes);
}
