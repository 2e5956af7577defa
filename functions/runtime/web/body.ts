import { Readable } from 'node:stream';
import { BUFFERED_BODY } from '@memgate/http/request/buffered';
import type { LiteHeaders } from './headers.ts';

/**
 * The body of a request or response: nothing, text, bytes or a stream. Text and bytes stay as they are until read, so
 * a JSON answer is never encoded only to be decoded again by the Lambda adapter; a stream is made only when `.body`
 * is asked for (the streaming adapter, the MCP SDK's body reader).
 */
export type BodySource = null | string | Uint8Array | ReadableStream<Uint8Array>;

export interface ExtractedBody {
  source: BodySource;
  /** The content type the body implies when the headers name none. */
  type: string | null;
}

const isStream = (value: unknown): value is ReadableStream<Uint8Array> =>
  typeof (value as ReadableStream | null)?.getReader === 'function';
/** Read from at least once (a stream's own state, which a released reader does not reset). */
const isDisturbed = (stream: ReadableStream<Uint8Array>): boolean => Readable.isDisturbed(stream as never);
const isBlob = (value: unknown): value is Blob =>
  Object.prototype.toString.call(value) === '[object Blob]' ||
  Object.prototype.toString.call(value) === '[object File]';

// ES2024's String.prototype.toWellFormed (Node 20+), beyond the project's TypeScript lib.
const wellFormed = (text: string): string => (text as string & { toWellFormed(): string }).toWellFormed();

/** What `body` holds, or undefined for a kind this module leaves to Node's classes (FormData). */
export function extractBody(body: unknown): ExtractedBody | undefined {
  if (body === null || body === undefined) return { source: null, type: null };
  if (typeof body === 'string') return { source: body, type: 'text/plain;charset=UTF-8' };
  if (body instanceof ArrayBuffer) return { source: new Uint8Array(body.slice(0)), type: null };
  if (ArrayBuffer.isView(body)) {
    return {
      source: new Uint8Array(body.buffer.slice(body.byteOffset, body.byteOffset + body.byteLength)),
      type: null,
    };
  }
  if (body instanceof URLSearchParams) {
    return { source: body.toString(), type: 'application/x-www-form-urlencoded;charset=UTF-8' };
  }
  if (isStream(body)) {
    if (body.locked || isDisturbed(body)) throw new TypeError('Body: a stream already read or locked cannot be a body');
    return { source: body, type: null };
  }
  if (isBlob(body)) return { source: body.stream() as ReadableStream<Uint8Array>, type: body.type || null };
  return undefined;
}

async function readAll(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let length = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (!ArrayBuffer.isView(value)) throw new TypeError('Body: a stream chunk is not a Uint8Array');
    chunks.push(value);
    length += value.byteLength;
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** Node's own class of that name (undici, loaded on this first use). */
export function nodeClass<K extends 'Request' | 'Response' | 'Headers' | 'FormData'>(name: K): (typeof globalThis)[K] {
  return globalThis[name];
}

/** The body half of Request and Response: read once, as text, JSON, bytes or a blob, or streamed. */
export abstract class LiteBody {
  #source: BodySource;
  #used = false;

  constructor(source: BodySource) {
    this.#source = source;
  }

  abstract get headers(): LiteHeaders;

  get body(): ReadableStream<Uint8Array> | null {
    const source = this.#source;
    if (source === null || isStream(source)) return source;
    // A body already read as text, JSON or bytes leaves a stream with nothing more in it, as the standard's does.
    const bytes = this.#used ? undefined : typeof source === 'string' ? new TextEncoder().encode(source) : source;
    this.#source = new ReadableStream<Uint8Array>({
      start(controller) {
        if (bytes) controller.enqueue(bytes);
        controller.close();
      },
    });
    return this.#source;
  }

  /** Read (a stream counts once anything read from it, even if its reader was released since), not merely locked. */
  get bodyUsed(): boolean {
    return this.#used || (isStream(this.#source) && isDisturbed(this.#source));
  }

  /** Read, or its stream held by a reader: either way it cannot be read again. */
  #unusable(): boolean {
    return this.bodyUsed || (isStream(this.#source) && this.#source.locked);
  }

  /** The source for a clone: text and bytes are shared (never written to), a stream is split in two. */
  protected cloneSource(): BodySource {
    if (this.#unusable()) throw new TypeError('Body: cannot clone a body that was already read');
    const source = this.#source;
    if (!isStream(source)) return source;
    const [mine, theirs] = source.tee();
    this.#source = mine;
    return theirs;
  }

  #take(): BodySource {
    if (this.#unusable()) throw new TypeError('Body is unusable: Body has already been read');
    this.#used = true;
    return this.#source;
  }

  /**
   * The body's bytes when they are in memory (text or bytes, not a stream), marking it read; undefined otherwise.
   * The API's body readers take this instead of `.body`, which would wrap them in a web stream only to read it.
   */
  [BUFFERED_BODY](): Uint8Array | undefined {
    const source = this.#source;
    if (isStream(source) || this.#unusable()) return undefined;
    this.#used = true;
    if (source === null) return new Uint8Array(0);
    return typeof source === 'string' ? Buffer.from(source, 'utf8') : source;
  }

  async text(): Promise<string> {
    const source = this.#take();
    // As UTF-8 bytes decoded would be: a leading byte order mark dropped, a lone surrogate replaced (U+FFFD).
    if (typeof source === 'string') return wellFormed(source.charCodeAt(0) === 0xfeff ? source.slice(1) : source);
    if (source === null) return '';
    return new TextDecoder().decode(isStream(source) ? await readAll(source) : source);
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  async bytes(): Promise<Uint8Array> {
    const source = this.#take();
    if (source === null) return new Uint8Array(0);
    if (typeof source === 'string') return new TextEncoder().encode(source);
    return isStream(source) ? readAll(source) : source.slice();
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async blob(): Promise<Blob> {
    return new Blob([(await this.bytes()) as Uint8Array<ArrayBuffer>], {
      type: this.headers.get('content-type') ?? '',
    });
  }

  /** Multipart and form bodies: parsed by Node's own Response (nothing here sends them). */
  async formData(): Promise<FormData> {
    const type = this.headers.get('content-type');
    const ResponseClass = nodeClass('Response');
    return new ResponseClass(await this.arrayBuffer(), type ? { headers: { 'content-type': type } } : {}).formData();
  }
}
