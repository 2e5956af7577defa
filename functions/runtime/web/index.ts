/**
 * `Headers`, `Request`, `Response` and `FormData` as the Lambda bundles see them (install.ts; scripts/build.ts points
 * the bundled code's global names at them, Node's own globals stay). Node's own classes are undici's: the first touch of any
 * of them (Hono's Lambda adapter builds a Request per event) loads and compiles all of undici, ~35-45 ms of CPU on
 * every cold start, for objects that here only carry an event's headers and body and a JSON answer. These do that
 * and hand anything else to Node's classes: a multipart body, `formData()`, `Response.error()`.
 * Instances of either kind pass the other's `instanceof`, by their `Symbol.toStringTag`.
 */
import { type BodySource, extractBody, LiteBody, nodeClass } from './body.ts';
import { type HeadersInit, LiteHeaders } from './headers.ts';

const FORBIDDEN_METHODS = /^(?:connect|trace|track)$/i;
const NORMALIZED_METHODS = /^(?:delete|get|head|options|post|put)$/i;
const METHOD_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const NULL_BODY_STATUS = new Set([101, 103, 204, 205, 304]);
const REDIRECT_STATUS = new Set([301, 302, 303, 307, 308]);
// HTTP's reason-phrase: tab, space, visible ASCII and obs-text (a line break would split the status line).
const REASON_PHRASE = /^[\t\x20-\x7e\x80-\xff]*$/;

const tagged = (value: unknown, tag: string) => Object.prototype.toString.call(value) === `[object ${tag}]`;

/** The body `init` gives, with its implied content type set on `headers` when they name none. */
function bodyFor(body: unknown, headers: LiteHeaders): BodySource | undefined {
  const extracted = extractBody(body);
  if (!extracted) return undefined;
  if (extracted.type !== null && !headers.has('content-type')) headers.set('content-type', extracted.type);
  return extracted.source;
}

interface LiteRequestInit {
  method?: string;
  headers?: HeadersInit | LiteHeaders;
  body?: unknown;
  signal?: AbortSignal | null;
  [option: string]: unknown;
}

type RequestLike = { url: string; method: string; headers: HeadersInit; signal?: AbortSignal; body: unknown };

export class LiteRequest extends LiteBody {
  readonly url: string;
  readonly method: string;
  readonly #headers: LiteHeaders;
  #signal: AbortSignal | undefined;

  constructor(input: string | URL | RequestLike, init: LiteRequestInit = {}) {
    const from = typeof input === 'object' && !(input instanceof URL) ? input : undefined;
    const url = new URL(from ? from.url : String(input)).href;
    let method = init.method ?? from?.method ?? 'GET';
    if (!METHOD_TOKEN.test(method)) throw new TypeError(`Request: invalid method "${method}"`);
    if (FORBIDDEN_METHODS.test(method)) throw new TypeError(`Request: method "${method}" is forbidden`);
    if (NORMALIZED_METHODS.test(method)) method = method.toUpperCase();
    const headers = new LiteHeaders(init.headers ?? from?.headers);
    if (!('body' in init) && from instanceof LiteBody && from.bodyUsed) {
      throw new TypeError('Request: cannot construct a Request from one whose body was already read');
    }
    const body = 'body' in init ? init.body : from ? from.body : null;
    if (body !== null && body !== undefined && (method === 'GET' || method === 'HEAD')) {
      throw new TypeError('Request with GET/HEAD method cannot have body.');
    }
    const source = bodyFor(body, headers);
    super(source ?? null);
    this.url = url;
    this.method = method;
    this.#headers = headers;
    this.#signal = init.signal ?? from?.signal ?? undefined;
    if (source === undefined) {
      // A form or multipart body: Node's Request takes it whole.
      const RequestClass = nodeClass('Request');
      // biome-ignore lint/correctness/noConstructorReturn: the standard class stands in for this one
      return new RequestClass(url, { ...init, method, headers: [...headers] } as RequestInit) as unknown as LiteRequest;
    }
  }

  get headers(): LiteHeaders {
    return this.#headers;
  }

  /** A signal that no one aborts unless the init gave one (made on first use: most requests never ask). */
  get signal(): AbortSignal {
    this.#signal ??= new AbortController().signal;
    return this.#signal;
  }

  get redirect(): RequestRedirect {
    return 'follow';
  }

  get mode(): RequestMode {
    return 'cors';
  }

  get credentials(): RequestCredentials {
    return 'same-origin';
  }

  get cache(): RequestCache {
    return 'default';
  }

  clone(): LiteRequest {
    return new LiteRequest(this.url, {
      method: this.method,
      headers: this.#headers,
      body: this.cloneSource(),
      signal: this.signal,
    });
  }

  get [Symbol.toStringTag](): string {
    return 'Request';
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return tagged(value, 'Request');
  }
}

interface LiteResponseInit {
  status?: number;
  statusText?: string;
  headers?: HeadersInit | LiteHeaders;
}

export class LiteResponse extends LiteBody {
  readonly status: number;
  readonly statusText: string;
  readonly #headers: LiteHeaders;

  constructor(body: unknown = null, init: LiteResponseInit = {}) {
    const status = init.status ?? 200;
    if (!Number.isInteger(status) || status < 200 || status > 599) {
      throw new RangeError(`Response: status ${status} is outside 200-599`);
    }
    if (init.statusText !== undefined && !REASON_PHRASE.test(init.statusText)) {
      throw new TypeError('Response: the status text is not a valid reason phrase');
    }
    const headers = new LiteHeaders(init.headers);
    if (body !== null && body !== undefined && NULL_BODY_STATUS.has(status)) {
      throw new TypeError(`Response with null body status ${status} cannot have body`);
    }
    const source = bodyFor(body, headers);
    super(source ?? null);
    this.status = status;
    this.statusText = init.statusText ?? '';
    this.#headers = headers;
    if (source === undefined) {
      // A form or multipart body: Node's Response takes it whole.
      const ResponseClass = nodeClass('Response');
      // biome-ignore lint/correctness/noConstructorReturn: the standard class stands in for this one
      return new ResponseClass(body as BodyInit, { ...init, headers: [...headers] }) as unknown as LiteResponse;
    }
  }

  get headers(): LiteHeaders {
    return this.#headers;
  }

  get ok(): boolean {
    return this.status >= 200 && this.status <= 299;
  }

  get redirected(): boolean {
    return false;
  }

  get type(): ResponseType {
    return 'default';
  }

  get url(): string {
    return '';
  }

  clone(): LiteResponse {
    return new LiteResponse(this.cloneSource(), {
      status: this.status,
      statusText: this.statusText,
      headers: this.#headers,
    });
  }

  static json(data: unknown, init: LiteResponseInit = {}): LiteResponse {
    const text = JSON.stringify(data);
    if (text === undefined) throw new TypeError('Response.json: the data is not JSON-serializable');
    const headers = new LiteHeaders(init.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return new LiteResponse(text, { ...init, headers });
  }

  static redirect(url: string | URL, status = 302): LiteResponse {
    if (!REDIRECT_STATUS.has(status)) throw new RangeError(`Response.redirect: ${status} is not a redirect status`);
    return new LiteResponse(null, { status, headers: { location: new URL(String(url)).href } });
  }

  static error(): Response {
    return nodeClass('Response').error();
  }

  get [Symbol.toStringTag](): string {
    return 'Response';
  }

  static override [Symbol.hasInstance](value: unknown): boolean {
    return tagged(value, 'Response');
  }
}

/** FormData stays Node's, built on first use; `instanceof` answers without loading it for what is not one. */
export class LiteFormData {
  constructor(...args: unknown[]) {
    const FormDataClass = nodeClass('FormData') as unknown as new (...args: unknown[]) => FormData;
    // biome-ignore lint/correctness/noConstructorReturn: the standard class stands in for this one
    return new FormDataClass(...args) as unknown as LiteFormData;
  }

  static [Symbol.hasInstance](value: unknown): boolean {
    return tagged(value, 'FormData');
  }
}
