import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { areaErrorHandler } from '../errors/index.ts';
import { readBodyText } from './body.ts';
import { BUFFERED_BODY } from './buffered.ts';

const LIMIT = 1024;

/** A Request that holds its body in memory and hands it over, as the Lambda bundles' own Request does. */
class InMemoryRequest extends Request {
  readonly #bytes: Uint8Array;
  handedOver = 0;

  constructor(url: string, text: string) {
    super(url, { method: 'POST', body: text });
    this.#bytes = Buffer.from(text, 'utf8');
  }

  // The stream must not be asked for: that is what the buffered path saves.
  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    throw new Error('the body stream was read');
  }

  [BUFFERED_BODY](): Uint8Array {
    this.handedOver++;
    return this.#bytes;
  }
}

const app = new Hono();
app.onError(areaErrorHandler('context'));
app.post('/echo', async (c) => c.json({ text: await readBodyText(c, LIMIT), again: await readBodyText(c, LIMIT) }));

describe('a body already in memory', () => {
  it('is taken as it is, once, without a stream over it', async () => {
    const request = new InMemoryRequest('http://memgate.test/echo', '{"note":"été"}');
    const response = await app.fetch(request);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ text: '{"note":"été"}', again: '{"note":"été"}' });
    expect(request.handedOver).toBe(1);
  });

  it('over the limit is refused with the 413 at once', async () => {
    const response = await app.fetch(new InMemoryRequest('http://memgate.test/echo', 'x'.repeat(LIMIT + 1)));
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ error: 'payload_too_large' });
  });

  it('is read from its stream when the request does not hold it (any other Request)', async () => {
    const response = await app.fetch(new Request('http://memgate.test/echo', { method: 'POST', body: 'streamed' }));
    expect(await response.json()).toEqual({ text: 'streamed', again: 'streamed' });
  });
});
