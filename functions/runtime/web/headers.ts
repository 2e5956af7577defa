/**
 * The WHATWG `Headers` of the Lambda bundles (see ./index.ts for why not Node's): names are case-insensitive and
 * iterate lower-cased in sorted order, values are trimmed and validated, repeated names join with ", " except
 * `set-cookie`, which stays one entry per cookie (`getSetCookie`).
 */

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// Leading and trailing HTTP whitespace, removed from values; inside a value, NUL, CR and LF are refused.
const EDGE_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
const INVALID_VALUE = /[\0\r\n]|[^\0-\u00ff]/;

export type HeadersInit = Iterable<readonly [string, string]> | Record<string, string | readonly string[]>;

function headerName(name: string): string {
  const text = String(name);
  if (!TOKEN.test(text)) throw new TypeError(`Headers: invalid header name "${text}"`);
  return text.toLowerCase();
}

function headerValue(name: string, value: string): string {
  const text = String(value).replace(EDGE_WHITESPACE, '');
  if (INVALID_VALUE.test(text)) throw new TypeError(`Headers: invalid value for header "${name}"`);
  return text;
}

export class LiteHeaders {
  readonly #values = new Map<string, string>();
  #cookies: string[] = [];

  constructor(init?: HeadersInit | LiteHeaders | null) {
    if (init === undefined || init === null) return;
    if (typeof init === 'object' && #values in init) {
      for (const [name, value] of init.#values) this.#values.set(name, value);
      this.#cookies = [...init.#cookies];
      return;
    }
    if (typeof init !== 'object') throw new TypeError('Headers: init must be an object or an iterable of pairs');
    if (Symbol.iterator in init) {
      for (const pair of init as Iterable<readonly string[]>) {
        if (pair.length !== 2) throw new TypeError('Headers: each header must be a [name, value] pair');
        this.append(pair[0] as string, pair[1] as string);
      }
      return;
    }
    for (const [name, value] of Object.entries(init)) this.append(name, value as string);
  }

  append(name: string, value: string): void {
    const key = headerName(name);
    const text = headerValue(key, value);
    if (key === 'set-cookie') {
      this.#cookies.push(text);
      return;
    }
    const current = this.#values.get(key);
    this.#values.set(key, current === undefined ? text : `${current}, ${text}`);
  }

  set(name: string, value: string): void {
    const key = headerName(name);
    const text = headerValue(key, value);
    if (key === 'set-cookie') this.#cookies = [text];
    else this.#values.set(key, text);
  }

  get(name: string): string | null {
    const key = headerName(name);
    if (key === 'set-cookie') return this.#cookies.length === 0 ? null : this.#cookies.join(', ');
    return this.#values.get(key) ?? null;
  }

  has(name: string): boolean {
    const key = headerName(name);
    return key === 'set-cookie' ? this.#cookies.length > 0 : this.#values.has(key);
  }

  delete(name: string): void {
    const key = headerName(name);
    if (key === 'set-cookie') this.#cookies = [];
    else this.#values.delete(key);
  }

  getSetCookie(): string[] {
    return [...this.#cookies];
  }

  /** Sorted by name, one entry per cookie, as the standard's iteration is. */
  *entries(): IterableIterator<[string, string]> {
    const names = [...this.#values.keys()];
    if (this.#cookies.length > 0) names.push('set-cookie');
    names.sort();
    for (const name of names) {
      if (name === 'set-cookie') for (const cookie of this.#cookies) yield [name, cookie];
      else {
        // A header deleted while iterating is skipped, as the standard's (live) iteration skips it.
        const value = this.#values.get(name);
        if (value !== undefined) yield [name, value];
      }
    }
  }

  *keys(): IterableIterator<string> {
    for (const [name] of this.entries()) yield name;
  }

  *values(): IterableIterator<string> {
    for (const [, value] of this.entries()) yield value;
  }

  forEach(callback: (value: string, name: string, headers: LiteHeaders) => void, thisArg?: unknown): void {
    for (const [name, value] of this.entries()) callback.call(thisArg, value, name, this);
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  get [Symbol.toStringTag](): string {
    return 'Headers';
  }

  /** Node's Headers (undici) and these are interchangeable: either is an instance of the other's class here. */
  static [Symbol.hasInstance](value: unknown): boolean {
    return Object.prototype.toString.call(value) === '[object Headers]';
  }
}
