import fc from 'fast-check';

// Generators of request bodies that are wrong in exactly one way (and so must always be refused), built from a valid
// body: a field with a wrong type, a required field missing, a huge string, deep nesting, odd Unicode where only
// fixed words are accepted, a number out of range, a duplicated key whose last value is wrong, an empty array.

export type Kind = 'string' | 'number' | 'integer' | 'boolean' | 'array' | 'object' | 'booleanLike';

export interface FieldRule {
  kind: Kind;
  required?: boolean;
  /** null is accepted (nullable fields are not mutated to null). */
  nullable?: boolean;
  /** Values that must be refused (out of range, too long, not in an enum, empty array...). */
  invalid?: fc.Arbitrary<unknown>[];
}

export type Rules = Record<string, FieldRule>;

/** A JSON text plus a label for failure messages. */
export interface BadBody {
  label: string;
  raw: string;
}

const nonFinite = fc.constantFrom('1e400', '-1e400');

function matches(kind: Kind, value: unknown): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'integer':
      return Number.isInteger(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'booleanLike':
      return typeof value === 'boolean' || value === 'true' || value === 'false';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
  }
}

/** Any JSON value whose type is not `kind`. */
export function wrongTypeFor(rule: FieldRule): fc.Arbitrary<unknown> {
  const values = fc.oneof(
    fc.string({ maxLength: 20 }),
    fc.integer(),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  );
  return values.filter((value) => !matches(rule.kind, value) && !(rule.nullable && value === null));
}

/** `depth` nested arrays around a string: valid JSON, far deeper than any field accepts. */
export const deepNesting = (depth: number) => `${'['.repeat(depth)}"x"${']'.repeat(depth)}`;

/** Strings no enum accepts: look-alikes, control characters, bidi overrides, lone surrogates, very long text. */
export const oddUnicode = fc.oneof(
  fc.constantFrom(
    'ınternal',
    'İnternal',
    'ｉｎｔｅｒｎａｌ',
    'internal\u0000',
    '\u202einternal',
    'intern\u200bal',
    '\ud800',
    '\udfffinternal',
    'e\u0301xternal',
    '🙂',
    '',
  ),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 30 }),
);

/** Replaces `key`'s value in a JSON object text by a raw JSON fragment (keeps the other keys). */
function withRaw(valid: Record<string, unknown>, key: string, fragment: string): string {
  const { [key]: _dropped, ...rest } = valid;
  const others = JSON.stringify(rest).slice(1, -1);
  return `{${others}${others ? ',' : ''}${JSON.stringify(key)}:${fragment}}`;
}

/** Every way of breaking `valid` one field at a time, given the fields' rules. */
export function badBodies(valid: Record<string, unknown>, rules: Rules): fc.Arbitrary<BadBody> {
  const keys = Object.keys(rules);
  const key = fc.constantFrom(...keys);
  const wrongType = key.chain((k) =>
    wrongTypeFor(rules[k] as FieldRule).map((value) => ({
      label: `${k} of the wrong type`,
      raw: JSON.stringify({ ...valid, [k]: value }),
    })),
  );
  const missing = keys.filter((k) => rules[k]?.required);
  const withInvalid = keys.filter((k) => (rules[k]?.invalid?.length ?? 0) > 0);
  const options: fc.Arbitrary<BadBody>[] = [
    wrongType,
    key.map((k) => ({ label: `${k} deeply nested`, raw: withRaw(valid, k, deepNesting(5_000)) })),
    key.chain((k) => nonFinite.map((n) => ({ label: `${k} not finite`, raw: withRaw(valid, k, n) }))),
    key.chain((k) =>
      wrongTypeFor(rules[k] as FieldRule).map((value) => ({
        label: `${k} duplicated, the last one wrong`,
        raw: withRaw(valid, k, `${JSON.stringify(valid[k] ?? 'x')},${JSON.stringify(k)}:${JSON.stringify(value)}`),
      })),
    ),
    fc.constantFrom('[]', '"text"', '42', 'null', 'true', '{', '{"a":}', '\u00ef\u00bb\u00bf{}', '').map((raw) => ({
      label: 'not a JSON object',
      raw,
    })),
  ];
  if (missing.length > 0) {
    options.push(
      fc.constantFrom(...missing).map((k) => {
        const { [k]: _dropped, ...rest } = valid;
        return { label: `${k} missing`, raw: JSON.stringify(rest) };
      }),
    );
  }
  if (withInvalid.length > 0) {
    options.push(
      fc
        .constantFrom(...withInvalid)
        .chain((k) =>
          fc
            .oneof(...((rules[k] as FieldRule).invalid as fc.Arbitrary<unknown>[]))
            .map((value) => ({ label: `${k} out of range`, raw: JSON.stringify({ ...valid, [k]: value }) })),
        ),
    );
  }
  return fc.oneof(...options);
}

/** A string of `length` characters (a fixed letter: fast to build, long enough to cross a limit). */
export const longString = (length: number) => fc.constant('x'.repeat(length));
