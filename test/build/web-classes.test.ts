import { describe, expect, it } from 'vitest';
import { LiteHeaders } from '../../functions/runtime/web/headers.ts';
import { LiteFormData, LiteRequest, LiteResponse } from '../../functions/runtime/web/index.ts';
import { BUFFERED_BODY } from '../../packages/http/src/request/buffered.ts';

// The Lambda bundles' Headers, Request and Response (functions/runtime/web), checked against Node's own.

type AnyHeaders = LiteHeaders | Headers;
const both = (init?: ConstructorParameters<typeof Headers>[0]): AnyHeaders[] => [
  new LiteHeaders(init as never),
  new Headers(init),
];
const stateOf = (headers: AnyHeaders) => ({
  entries: [...headers.entries()],
  forEach: (() => {
    const seen: string[][] = [];
    headers.forEach((value, name) => {
      seen.push([name, value]);
    });
    return seen;
  })(),
  cookies: headers.getSetCookie(),
  accept: headers.get('ACCEPT'),
  cookie: headers.get('set-cookie'),
  hasVary: headers.has('Vary'),
});

describe('Headers', () => {
  it('keeps names, values, repeats and cookies as Node does', () => {
    const states = both([
      ['Accept', ' text/html '],
      ['accept', 'application/json'],
      ['Set-Cookie', 'a=1'],
      ['X-Zeta', 'z'],
      ['set-cookie', 'b=2'],
      ['Vary', 'Origin'],
    ]).map((headers) => {
      headers.append('vary', 'Accept');
      headers.set('x-alpha', '\tfirst\t');
      headers.delete('X-ZETA');
      return stateOf(headers);
    });
    expect(states[0]).toEqual(states[1]);
  });

  it('takes a record, another Headers of either kind, or pairs', () => {
    const record = { 'Content-Type': 'application/json', 'X-Id': '7' };
    expect([...new LiteHeaders(record)]).toEqual([...new Headers(record)]);
    expect([...new LiteHeaders(new Headers(record) as never)]).toEqual([...new Headers(record)]);
    expect([...new LiteHeaders(new LiteHeaders(record))]).toEqual([...new Headers(record)]);
    expect([...new Headers(new LiteHeaders(record) as never)]).toEqual([...new Headers(record)]);
  });

  it.each([
    ['a name with a space', () => new LiteHeaders().set('bad name', 'x')],
    ['a value with a line break', () => new LiteHeaders().set('x-a', 'one\r\ntwo: three')],
    ['a value beyond Latin-1', () => new LiteHeaders().set('x-a', 'café ☕')],
    ['a pair of three', () => new LiteHeaders([['a', 'b', 'c']] as never)],
  ])('refuses %s with a TypeError, as Node does', (_, build) => {
    expect(build).toThrow(TypeError);
  });

  it('is an instance of Node’s Headers class and the reverse', () => {
    expect(new LiteHeaders()).toBeInstanceOf(LiteHeaders);
    expect(new Headers()).toBeInstanceOf(LiteHeaders);
    expect(Object.prototype.toString.call(new LiteHeaders())).toBe('[object Headers]');
  });
});

describe('Request', () => {
  it('normalises its URL and method and reads its body once, as text, JSON or bytes', async () => {
    const request = new LiteRequest('https://api.example.com/a/../b?q=1', {
      method: 'post',
      headers: { 'x-id': '1' },
      body: '{"a":1}',
    });
    expect(request.url).toBe('https://api.example.com/b?q=1');
    expect(request.method).toBe('POST');
    expect(request.headers.get('content-type')).toBe('text/plain;charset=UTF-8');
    expect(request.bodyUsed).toBe(false);
    expect(await request.clone().json()).toEqual({ a: 1 });
    expect(await request.text()).toBe('{"a":1}');
    expect(request.bodyUsed).toBe(true);
    await expect(request.text()).rejects.toThrow(TypeError);
    expect(new LiteRequest('https://x.test/', { method: 'patch' }).method).toBe('patch'); // as the standard says
  });

  it('streams a bytes body (what the MCP SDK reads) and keeps binary bytes intact', async () => {
    const bytes = new Uint8Array([0, 255, 128, 10]);
    const request = new LiteRequest('https://x.test/', { method: 'POST', body: bytes });
    bytes[0] = 9; // the body is a copy
    const reader = (request.body as ReadableStream<Uint8Array>).getReader();
    expect([...((await reader.read()).value as Uint8Array)]).toEqual([0, 255, 128, 10]);
    expect((await reader.read()).done).toBe(true);
    expect(request.bodyUsed).toBe(true);
    const again = new LiteRequest('https://x.test/', { method: 'PUT', body: new Uint8Array([1, 2]).buffer });
    expect([...new Uint8Array(await again.arrayBuffer())]).toEqual([1, 2]);
  });

  it('refuses what Node refuses: a GET with a body, a forbidden method, a relative URL', () => {
    expect(() => new LiteRequest('https://x.test/', { method: 'GET', body: 'x' })).toThrow(TypeError);
    expect(() => new LiteRequest('https://x.test/', { method: 'CONNECT' })).toThrow(TypeError);
    expect(() => new LiteRequest('/relative')).toThrow(TypeError);
  });

  it('gives a signal that is not aborted, or the one it was given', () => {
    expect(new LiteRequest('https://x.test/').signal.aborted).toBe(false);
    const controller = new AbortController();
    const request = new LiteRequest('https://x.test/', { signal: controller.signal });
    controller.abort();
    expect(request.signal.aborted).toBe(true);
  });

  it('leaves a form body to Node’s Request, which parses it', async () => {
    const form = new FormData();
    form.set('name', 'memgate');
    const request = new LiteRequest('https://x.test/', { method: 'POST', body: form });
    expect(request).toBeInstanceOf(Request);
    expect((await request.formData()).get('name')).toBe('memgate');
  });
});

describe('Response', () => {
  it('answers JSON with its status and headers; its body reads as text, bytes or a stream', async () => {
    const response = LiteResponse.json({ ok: true }, { status: 201, headers: { 'x-request-id': 'r1' } });
    expect(response.status).toBe(201);
    expect(response.ok).toBe(true);
    expect(response.headers.get('content-type')).toBe('application/json');
    expect(await response.clone().text()).toBe('{"ok":true}');
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('{"ok":true}');
  });

  it('carries a stream through unread (an SSE answer) and rebuilds from another response', async () => {
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('data: 1\n\n'));
        controller.enqueue(new TextEncoder().encode('data: 2\n\n'));
        controller.close();
      },
    });
    const first = new LiteResponse(stream, { headers: { 'content-type': 'text/event-stream' } });
    expect(first.body).toBe(stream);
    const second = new LiteResponse(first.body, first);
    expect(second.headers.get('content-type')).toBe('text/event-stream');
    expect(await second.text()).toBe('data: 1\n\ndata: 2\n\n');
  });

  it('refuses what Node refuses: a status outside 200-599, a body on 204, JSON of undefined', () => {
    expect(() => new LiteResponse(null, { status: 99 })).toThrow(RangeError);
    expect(() => new LiteResponse('x', { status: 204 })).toThrow(TypeError);
    expect(() => LiteResponse.json(undefined)).toThrow(TypeError);
    expect(new LiteResponse(null, { status: 204 }).body).toBeNull();
  });

  it('redirects, and is an instance of Node’s Response class and the reverse', () => {
    const redirect = LiteResponse.redirect('https://x.test/next', 307);
    expect(redirect.status).toBe(307);
    expect(redirect.headers.get('location')).toBe('https://x.test/next');
    expect(new Response('x')).toBeInstanceOf(LiteResponse);
    expect(new LiteResponse('x')).toBeInstanceOf(LiteResponse);
    expect(new Request('https://x.test/')).toBeInstanceOf(LiteRequest);
  });

  it('reads a blob with its content type', async () => {
    const blob = await new LiteResponse('abc', { headers: { 'content-type': 'text/csv' } }).blob();
    expect(blob.type).toBe('text/csv');
    expect(await blob.text()).toBe('abc');
  });
});

describe('FormData', () => {
  it('is Node’s, and answers instanceof for what is not one', () => {
    expect(new LiteFormData()).toBeInstanceOf(FormData);
    expect({}).not.toBeInstanceOf(LiteFormData);
    expect(new FormData()).toBeInstanceOf(LiteFormData);
  });
});

// Review of the classes against the standard's body and header rules, each checked against Node's own classes.
describe('a body read once, whichever way it was read', () => {
  const readThroughItsStream = async (message: LiteRequest | Request) => {
    // What the MCP SDK's readRequestBody does: read the stream, then release the reader.
    const reader = (message.body as ReadableStream<Uint8Array>).getReader();
    while (!(await reader.read()).done);
    reader.releaseLock();
  };
  const post = (body: BodyInit) => [
    new LiteRequest('https://x.test/', { method: 'POST', body }),
    new Request('https://x.test/', { method: 'POST', body }),
  ];

  it('is used once its stream was read and released: a second read throws rather than answering ""', async () => {
    for (const request of post(new Uint8Array([104, 105]))) {
      await readThroughItsStream(request);
      expect(request.bodyUsed).toBe(true);
      await expect(request.text()).rejects.toThrow(TypeError);
      expect(() => request.clone()).toThrow(TypeError);
    }
  });

  it('is not used while its stream is only locked, yet cannot be read twice', async () => {
    for (const response of [new LiteResponse('abc'), new Response('abc')]) {
      (response.body as ReadableStream<Uint8Array>).getReader();
      expect(response.bodyUsed).toBe(false);
      await expect(response.text()).rejects.toThrow(TypeError);
    }
  });

  it('has no content left in its stream after text(), and a new Request cannot take it again', async () => {
    for (const request of post('hello')) {
      await request.text();
      const stream = request.body as ReadableStream<Uint8Array>; // Node's is left locked, ours empty
      expect(stream.locked || (await stream.getReader().read()).done).toBe(true);
      expect(() => new (request instanceof Request ? Request : LiteRequest)(request as never)).toThrow(TypeError);
    }
  });

  it('refuses a stream that was read or is locked as the body of a new Response', async () => {
    for (const Class of [LiteResponse, Response]) {
      const read = new Response('abc').body as ReadableStream<Uint8Array>;
      const reader = read.getReader();
      await reader.read();
      reader.releaseLock();
      expect(() => new Class(read)).toThrow(TypeError);
      const locked = new Response('abc').body as ReadableStream<Uint8Array>;
      locked.getReader();
      expect(() => new Class(locked)).toThrow(TypeError);
    }
  });
});

describe('text as the standard decodes it', () => {
  it('drops a leading byte order mark and replaces a lone surrogate, as UTF-8 bytes would', async () => {
    for (const body of ['\uFEFF{"a":1}', 'a\uD800b']) {
      expect(await new LiteResponse(body).text()).toBe(await new Response(body).text());
    }
    expect(await new LiteResponse('\uFEFF{"a":1}').json()).toEqual({ a: 1 });
  });
});

describe('headers changed while iterated, and a status text', () => {
  it('skips a header deleted during iteration, as Node does', () => {
    const seen = both({ a: '1', b: '2', c: '3' }).map((headers) => {
      const pairs: string[][] = [];
      for (const pair of headers) {
        pairs.push(pair);
        headers.delete('b');
      }
      return pairs;
    });
    expect(seen[0]).toEqual(seen[1]);
  });

  it('refuses a status text that is not a reason phrase', () => {
    expect(() => new Response(null, { statusText: 'bad\r\nx-injected: 1' })).toThrow(TypeError);
    expect(() => new LiteResponse(null, { statusText: 'bad\r\nx-injected: 1' })).toThrow(TypeError);
    expect(new LiteResponse(null, { status: 201, statusText: 'Created' }).statusText).toBe('Created');
  });
});

describe('a body in memory handed over whole (the API reads it without a web stream)', () => {
  it('gives the bytes of a text or byte body once, and the body then counts as read', async () => {
    const text = new LiteRequest('https://x.test/', { method: 'POST', body: '{"note":"été"}' });
    expect(Buffer.from(text[BUFFERED_BODY]() as Uint8Array).toString('utf8')).toBe('{"note":"été"}');
    expect(text.bodyUsed).toBe(true);
    expect(text[BUFFERED_BODY]()).toBeUndefined();
    await expect(text.text()).rejects.toThrow(TypeError);
    const bytes = new LiteResponse(new Uint8Array([1, 2, 3]));
    expect([...(bytes[BUFFERED_BODY]() as Uint8Array)]).toEqual([1, 2, 3]);
    expect([...(new LiteResponse(null)[BUFFERED_BODY]() as Uint8Array)]).toEqual([]);
  });

  it('gives nothing for a stream, which is read as one', async () => {
    const streamed = new LiteResponse(new Response('streamed').body);
    expect(streamed[BUFFERED_BODY]()).toBeUndefined();
    expect(await streamed.text()).toBe('streamed');
  });
});
