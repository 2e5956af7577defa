import { loadTokenizer } from '@memgate/core/history/tokenizer';
import { beforeAll, describe, expect, it } from 'vitest';
import { deeplyNested, randomProse, toolMessages, unspacedWord } from '../load/abuse.ts';
import { measureLoopHold } from '../support/event-loop.ts';
import { startUpstreamStub, type UpstreamStub } from '../support/upstream-stub.ts';
import { ALL_SCOPES, routeAPath, type SecurityHarness, startSecurityHarness, tokenFor } from './harness.ts';

// DESIGN.md §4 "Size and time" (issue 12 items 1, 2 and 4): no single request may hold the event loop long enough
// to delay another by more than 100 ms, and a body nested too deep is a 400 before anything starts. Each request
// below once froze the server for seconds (a 120,000-letter word: 30 s; 100,000 tool results: 67 s) or answered 500.
// The stall is the longest stretch the event loop was held while the request, and the exchange it stores afterwards,
// ran, in CPU time (test/support/event-loop.ts): the machine's load does not change it.

const MAX_STALL_MS = 100;
const ROUTE_B = '/api/v1/proxy/default/chat/completions';
const CHAT = '/api/v1/chat/generate/stream';
const RESPONSES_B = '/api/v1/proxy/default/responses';
let h: SecurityHarness;
let stub: UpstreamStub;
let token: string;

beforeAll(async () => {
  stub = await startUpstreamStub({ maxHeaderSize: 64 * 1024 });
  h = await startSecurityHarness();
  token = await tokenFor('fay', { scope: ALL_SCOPES });
  // The tokenizer's table loads on first use (a one-time cost, not the request's; the local server loads it before it
  // listens): load it here. A short request no longer counts tokens (an upper bound shows it fits), so it is not
  // enough on its own.
  loadTokenizer();
  await h.request('POST', ROUTE_B, {
    token,
    body: { model: 'memgate/default', messages: [{ role: 'user', content: 'warm up' }] },
  });
  await h.background.idle();
});

/** Runs `work` and the background work it starts; returns its result and how long it held the loop (CPU ms). */
async function withLongestStall<T>(work: () => Promise<T>): Promise<{ result: T; stallMs: number }> {
  const { result, hold } = await measureLoopHold(async () => {
    const answer = await work();
    await h.background.idle();
    return answer;
  });
  console.log(
    `held the event loop for ${hold.cpuMs} ms of CPU at most (${hold.wallMs.toFixed(0)} ms on the wall clock)`,
  );
  return { result, stallMs: hold.cpuMs };
}

describe('no request holds the event loop', () => {
  it('a 120,000-letter word on route B is answered without a stall', async () => {
    const body = JSON.stringify({
      model: 'memgate/default',
      messages: [{ role: 'user', content: unspacedWord(120_000) }],
    });
    const { result, stallMs } = await withLongestStall(() => h.request('POST', ROUTE_B, { token, raw: body }));
    expect(result.status).toBe(200);
    expect(JSON.parse(result.text).usage.prompt_tokens).toBeGreaterThan(30_000);
    expect(stallMs, `held the loop for ${stallMs} ms of CPU`).toBeLessThan(MAX_STALL_MS);
  });

  it('a 100,000-letter word in the chat stream is answered without a stall', async () => {
    const body = JSON.stringify({ chat_history: [{ role: 'user', content: unspacedWord(100_000, 7) }] });
    const { result, stallMs } = await withLongestStall(() => h.request('POST', CHAT, { token, raw: body }));
    expect(result.status).toBe(200);
    expect(result.text).toContain('"type":"final_response"');
    expect(result.text.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(stallMs, `held the loop for ${stallMs} ms of CPU`).toBeLessThan(MAX_STALL_MS);
  });

  it('route A: a base URL ending in a long run of slashes is forwarded without a stall', async () => {
    // The slashes a base URL ends with are cut before the endpoint is joined: a regex cut of them was quadratic in
    // a run of slashes not at the end (40,000 held the loop ~0.5 s of CPU; the ~15,000 that fit the local server's
    // 16 KB request line, 0.1-0.5 s).
    const base = `${stub.url}/${'/'.repeat(40_000)}v1/`;
    const messages = [{ role: 'user', content: 'hi' }];
    const { result, stallMs } = await withLongestStall(() =>
      h.request('POST', routeAPath(encodeURIComponent(base)), { token, body: { model: 'stub-model', messages } }),
    );
    expect(result.status).toBe(200);
    expect(stub.requests.at(-1)?.path).toBe(`/v1/${'/'.repeat(40_000)}v1/chat/completions`);
    expect(stallMs, `held the loop for ${stallMs} ms of CPU`).toBeLessThan(MAX_STALL_MS);
  });

  it.each([
    ['prose', (n: number) => randomProse(1_000_000, n + 11), 3],
    ['Han characters', (n: number) => hanText(950_000, n), 2],
  ])(
    'an add of megabytes of %s is written without a stall',
    async (_, text, count) => {
      const documents = Array.from({ length: count }, (_, n) => ({ content: text(n), fileName: `big-${n}.txt` }));
      const body = JSON.stringify({ documents });
      expect(Buffer.byteLength(body)).toBeLessThan(6 * 1024 * 1024);
      const { result, stallMs } = await withLongestStall(() =>
        h.request('POST', '/api/v1/context/add', { token, raw: body }),
      );
      expect(result.status).toBe(201);
      expect(JSON.parse(result.text).documents).toHaveLength(count);
      expect(stallMs, `held the loop for ${stallMs} ms of CPU`).toBeLessThan(MAX_STALL_MS);
    },
    120_000,
  );

  it('100,000 tool results after the question are filtered without a stall, and all forwarded', async () => {
    const body = `{"model":"memgate/default","messages":${toolMessages(100_000)}}`;
    expect(body.length).toBeLessThan(6 * 1024 * 1024); // under the body limit: the filter sees all of them
    const { result, stallMs } = await withLongestStall(() => h.request('POST', ROUTE_B, { token, raw: body }));
    expect(result.status).toBe(200);
    expect(result.headers.get('x-memgate-history-kept')).toBe('100002');
    expect(stallMs, `held the loop for ${stallMs} ms of CPU`).toBeLessThan(MAX_STALL_MS);
  });

  it('a Responses request with 100,000 input items is validated without a stall', async () => {
    const item = JSON.stringify({ type: 'message', role: 'user', content: 'ok' });
    const body = `{"model":"memgate/default","input":[${Array<string>(100_000).fill(item).join(',')}]}`;
    expect(body.length).toBeLessThan(6 * 1024 * 1024);
    const { result, stallMs } = await withLongestStall(() =>
      h.request('POST', RESPONSES_B, { token, raw: body, headers: { 'x-memgate-filter': 'off' } }),
    );
    expect(result.status).toBe(200);
    expect(result.headers.get('x-memgate-history-kept')).toBe('100000');
    expect(stallMs, `held the loop for ${stallMs} ms of CPU`).toBeLessThan(MAX_STALL_MS);
  });

  it('a Responses request with 40,000 function calls in a row is read without a stall', async () => {
    // Consecutive function_call items become one assistant message's tool_calls: copying that list for each call
    // was quadratic (20,000 calls held the loop ~2 s).
    const calls = Array.from({ length: 40_000 }, (_, n) => ({ type: 'function_call', call_id: `c${n}`, name: 'f' }));
    const outputs = calls.map(({ call_id }) => ({ type: 'function_call_output', call_id, output: 'ok' }));
    const input = [{ role: 'user', content: 'look it up' }, ...calls, ...outputs, { role: 'user', content: 'and?' }];
    const body = JSON.stringify({ model: 'memgate/default', input });
    expect(body.length).toBeLessThan(6 * 1024 * 1024);
    const { result, stallMs } = await withLongestStall(() =>
      h.request('POST', RESPONSES_B, { token, raw: body, headers: { 'x-memgate-filter': 'off' } }),
    );
    expect(result.status).toBe(200);
    // The question, one assistant message holding every call, each result and the last question.
    expect(result.headers.get('x-memgate-history-kept')).toBe('40003');
    expect(stallMs, `held the loop for ${stallMs} ms of CPU`).toBeLessThan(MAX_STALL_MS);
  }, 120_000);

  it('route A: a Responses input ending in 200,000 items of other types is forwarded whole, without a stall', async () => {
    // Items that are not messages ride with the message before them: 400,000 after the last one were appended as
    // arguments of one call, which overflowed the stack past ~150,000 (a 500).
    const input = [{ role: 'user', content: 'hi' }, ...Array.from({ length: 200_000 }, () => ({ type: 'x' }))];
    const body = JSON.stringify({ model: 'stub-model', input });
    expect(body.length).toBeLessThan(6 * 1024 * 1024);
    const path = routeAPath(stub.url).replace(/chat\/completions$/, 'responses');
    const { result, stallMs } = await withLongestStall(() => h.request('POST', path, { token, raw: body }));
    expect(result.status).toBe(200);
    // Context stored by the tests before may be injected ahead of them.
    const forwarded = (stub.requests.at(-1)?.body as { input?: { type?: string }[] } | undefined)?.input ?? [];
    expect(forwarded.slice(-200_001)).toEqual(input);
    expect(stallMs, `held the loop for ${stallMs} ms of CPU`).toBeLessThan(MAX_STALL_MS);
  }, 120_000);

  it('100,000 older messages are scored for the history filter without a stall', async () => {
    const older = Array.from({ length: 100_000 }, (_, n) =>
      JSON.stringify({ role: n % 2 ? 'assistant' : 'user', content: `note ${n} on ${randomProse(12, n + 1)}` }),
    );
    const question = JSON.stringify({ role: 'user', content: 'what did the notes say?' });
    const body = `{"model":"memgate/default","messages":[${older.join(',')},${question}]}`;
    expect(body.length).toBeLessThan(6 * 1024 * 1024);
    const { result, stallMs } = await withLongestStall(() => h.request('POST', ROUTE_B, { token, raw: body }));
    expect(result.status).toBe(200);
    expect(Number(result.headers.get('x-memgate-history-dropped'))).toBeGreaterThan(90_000);
    expect(stallMs, `held the loop for ${stallMs} ms of CPU`).toBeLessThan(MAX_STALL_MS);
  }, 120_000);

  it('one older message of 5,000,000 characters is scored for the history filter without a stall', async () => {
    const turns = ['a short reply', 'and then?', 'more', 'go on', 'that is all'];
    const messages = [
      { role: 'user', content: randomProse(5_000_000, 3) },
      ...turns.map((content, n) => ({ role: n % 2 ? 'user' : 'assistant', content })),
      { role: 'user', content: 'what did I paste first?' },
    ];
    const { result, stallMs } = await withLongestStall(() =>
      h.request('POST', ROUTE_B, { token, body: { model: 'memgate/default', messages } }),
    );
    expect(result.status).toBe(200);
    // Far over the token budget: not forwarded, and its tokens (estimated past the exact allowance) reported saved.
    expect(Number(result.headers.get('x-memgate-history-dropped'))).toBeGreaterThanOrEqual(1);
    expect(Number(result.headers.get('x-memgate-tokens-saved'))).toBeGreaterThan(500_000);
    expect(stallMs, `held the loop for ${stallMs} ms of CPU`).toBeLessThan(MAX_STALL_MS);
  });

  // JSON.parse of a body of ~450,000 distinct keys held the loop 0.5-1.6 s in one piece, on every route; ~450,000
  // distinct short strings 0.15-0.4 s. The body is parsed in pieces; what each route then does with the field is
  // its own (an unknown field is dropped by the schema, forwarded as written, or stored).
  const distinctKeys = () => {
    const objects = Array.from({ length: 45_000 }, (_, n) => {
      const keys = Array.from({ length: 10 }, (_, k) => `"k${n * 10 + k}":1`);
      return `{${keys.join(',')}}`;
    });
    return `[${objects.join(',')}]`;
  };
  const shortStrings = () => `[${Array.from({ length: 450_000 }, (_, n) => `"s${n}"`).join(',')}]`;
  it.each([
    [
      'context search, distinct keys',
      '/api/v1/context/search',
      '{"query":"x","similarity_threshold":1,"minimum_similarity_threshold":0,"extra":%s}',
      distinctKeys,
      202,
    ],
    [
      'route B, distinct keys',
      ROUTE_B,
      '{"model":"memgate/default","messages":[{"role":"user","content":"hi"}],"extra":%s}',
      distinctKeys,
      200,
    ],
    ['chat, short strings', CHAT, '{"chat_history":[{"role":"user","content":"hi"}],"extra":%s}', shortStrings, 200],
    ['Responses, short strings', RESPONSES_B, '{"model":"memgate/default","input":"hi","extra":%s}', shortStrings, 200],
  ] as const)(
    '%s: a 6 MB body is parsed without a stall',
    async (_, path, template, field, status) => {
      const raw = template.replace('%s', field());
      expect(raw.length).toBeLessThan(6 * 1024 * 1024);
      const { result, stallMs } = await withLongestStall(() => h.request('POST', path, { token, raw }));
      expect(result.status, result.text.slice(0, 300)).toBe(status);
      expect(stallMs, `held the loop for ${stallMs} ms of CPU`).toBeLessThan(MAX_STALL_MS);
    },
    120_000,
  );

  it('text that spells a special token is counted as text, not refused', async () => {
    const content = 'What does <|endoftext|> or <|im_start|> mean in my notes?';
    const res = await h.request('POST', ROUTE_B, {
      token,
      body: { model: 'memgate/default', max_tokens: 5, messages: [{ role: 'user', content }] },
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.text).usage.prompt_tokens).toBeGreaterThan(10);
  });
});

describe('JSON nested 100,000 levels deep is a 400 in the area format, before anything starts', () => {
  const deep = deeplyNested(100_000);

  it('route B: content parts', async () => {
    await h.background.idle();
    const before = await h.itemCount();
    const raw = `{"model":"memgate/default","messages":[{"role":"user","content":[{"type":"text","text":"hi","x":${deep}}]}]}`;
    const res = await h.request('POST', ROUTE_B, { token, raw });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({
      error: {
        message: 'messages: nests arrays or objects deeper than 64 levels',
        type: 'invalid_request_error',
        param: 'messages',
        code: 'invalid_request',
      },
    });
    await h.background.idle();
    expect(await h.itemCount()).toBe(before);
  });

  it('route A: an extra field, and nothing reaches the target', async () => {
    const raw = `{"model":"stub-model","messages":[{"role":"user","content":"hi","extra":${deep}}]}`;
    const before = stub.requests.length;
    const res = await h.request('POST', routeAPath(stub.url), { token, raw });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text).error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request' });
    expect(stub.requests).toHaveLength(before);
  });

  it('chat: a tool whose parameters nest that deep is JSON, not a stream that fails later', async () => {
    const raw = `{"chat_history":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"deep","parameters":{"type":"object","x":${deep}}}}]}`;
    const res = await h.request('POST', CHAT, { token, raw });
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(JSON.parse(res.text)).toEqual({ message: 'tools: nests arrays or objects deeper than 64 levels' });
  });

  it('context: deep metadata on add stores nothing', async () => {
    const before = await h.itemCount();
    const raw = `{"documents":[{"content":"a note","fileName":"deep.txt"}],"metadata":{"tags":${deep}}}`;
    const res = await h.request('POST', '/api/v1/context/add', { token, raw });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toEqual({
      response: 'metadata: nests arrays or objects deeper than 64 levels',
      error: 'validation_error',
    });
    expect(await h.itemCount()).toBe(before);
  });

  it('nesting up to the limit is still accepted (a tool schema 60 levels deep)', async () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 29; level += 1) schema = { type: 'object', properties: { inner: schema } };
    const res = await h.request('POST', CHAT, {
      token,
      body: {
        chat_history: [{ role: 'user', content: 'hi' }],
        tools: [{ type: 'function', function: { name: 'ok', parameters: schema } }],
      },
    });
    expect(res.status).toBe(200);
    expect(res.text).toContain('"type":"final_response"');
  });
});

/** `length` CJK ideographs in a fixed pseudo-random order (each one a term of the lexical index). */
function hanText(length: number, seed: number): string {
  let text = '';
  for (let at = 0; at < length; at++) text += String.fromCharCode(0x4e00 + ((at * 7919 + seed * 104_729) % 20_000));
  return text;
}
