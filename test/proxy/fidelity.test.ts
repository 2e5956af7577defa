import { get } from 'node:http';
import OpenAI from 'openai';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { tokenFor } from '../support/tokens.ts';
import { startUpstreamStub } from '../support/upstream-stub.ts';
import { createFakeContextStore, startProxy } from './harness.ts';

// What OpenAI clients read beyond the answer (DESIGN.md section 4): upstream headers, `param`, the default model's
// parameters, tool-call deltas, the model list.
const stub = await startUpstreamStub();
const fake = createFakeContextStore([
  {
    fileName: 'billing.md',
    text: 'Invoices are sent on the first day of each month. Refunds take five business days.',
  },
]);
const proxy = await startProxy({ contextStore: fake.store });
const operator = await startProxy({ contextStore: fake.store, env: { DEFAULT_MODEL_BASE_URL: stub.url } });
const token = await tokenFor('dora', { scope: 'proxy' });
afterAll(async () => {
  await proxy.close();
  await operator.close();
  await stub.close();
});
beforeEach(() => {
  stub.setBehavior({});
  stub.requests.length = 0;
});

const KEY = 'sk-target-secret-456';
const routeA = `${proxy.url}/api/v1/proxy/${stub.url}/${KEY}`;
const client = (baseURL: string) => new OpenAI({ baseURL, apiKey: token, maxRetries: 0 });
const user = [{ role: 'user' as const, content: 'How long do refunds take?' }];
const UPSTREAM_HEADERS = {
  'x-request-id': 'req_123',
  'openai-processing-ms': '42',
  'x-ratelimit-remaining-requests': '59',
  'x-ratelimit-reset-tokens': '1s',
  'retry-after-ms': '250',
  'set-cookie': 'session=upstream',
  'x-internal-host': 'gpu-7',
};

describe('route A query', () => {
  it("sends the caller's query on to the target, after the base URL's own", async () => {
    const path = new URL(stub.url).pathname;
    const azure = new OpenAI({
      baseURL: routeA,
      apiKey: token,
      maxRetries: 0,
      defaultQuery: { 'api-version': '2024-10-21' },
    });
    await azure.chat.completions.create({ model: 'gpt-x', messages: user });
    expect(stub.requests.at(-1)?.path).toBe(`${path}/chat/completions?api-version=2024-10-21`);
    await azure.models.list();
    expect(stub.requests.at(-1)?.path).toBe(`${path}/models?api-version=2024-10-21`);
    const withQuery = encodeURIComponent(`${stub.url}?deployment=d1`);
    const res = await fetch(`${proxy.url}/api/v1/proxy/${withQuery}/${KEY}/chat/completions?api-version=2`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-x', messages: user }),
    });
    expect(res.status).toBe(200);
    expect(stub.requests.at(-1)?.path).toBe(`${path}/chat/completions?deployment=d1&api-version=2`);
  });
});

describe('upstream headers', () => {
  it('route A forwards request id, processing time, rate limits and retry hints, nothing else', async () => {
    stub.setBehavior({ headers: UPSTREAM_HEADERS });
    for (const stream of [false, true]) {
      const { response } = await client(routeA)
        .chat.completions.create({ model: 'gpt-x', messages: user, stream })
        .withResponse();
      expect(response.headers.get('x-request-id')).toBe('req_123');
      expect(response.headers.get('openai-processing-ms')).toBe('42');
      expect(response.headers.get('x-ratelimit-remaining-requests')).toBe('59');
      expect(response.headers.get('x-ratelimit-reset-tokens')).toBe('1s');
      expect(response.headers.get('retry-after-ms')).toBe('250');
      expect(response.headers.get('set-cookie')).toBeNull();
      expect(response.headers.get('x-internal-host')).toBeNull();
    }
  });

  it('route A answers with the service request id when the upstream sends none', async () => {
    for (const stream of [false, true]) {
      const { response } = await client(routeA)
        .chat.completions.create({ model: 'gpt-x', messages: user, stream })
        .withResponse();
      expect(response.headers.get('x-request-id'), `stream ${stream}`).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it('route B forwards only retry-after and retry-after-ms of the operator upstream', async () => {
    stub.setBehavior({ headers: { ...UPSTREAM_HEADERS, 'retry-after': '2' } });
    const { response } = await client(`${operator.url}/api/v1/proxy/default`)
      .chat.completions.create({ model: 'memgate/default', messages: user })
      .withResponse();
    expect(response.headers.get('retry-after')).toBe('2');
    expect(response.headers.get('retry-after-ms')).toBe('250');
    // The service's own request id, never the operator upstream's.
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(response.headers.get('x-ratelimit-remaining-requests')).toBeNull();
  });
});

describe('error objects', () => {
  it('carry param, which the SDK exposes', async () => {
    const error = (await client(routeA)
      .chat.completions.create({ model: 'gpt-x', messages: user, temperature: 3 })
      .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.BadRequestError>;
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect(error.param).toBe('temperature');
    expect(error.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', param: 'temperature' });
  });

  it('carry param null when no parameter is at fault', async () => {
    const res = await fetch(`${routeA}/chat/completions`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      error: { message: expect.any(String), type: 'authentication_error', param: null, code: 'invalid_token' },
    });
  });
});

describe('the default model honours its parameters or refuses them', () => {
  const routeB = () => client(`${proxy.url}/api/v1/proxy/default`);

  it('max_completion_tokens cuts the extractive answer (finish_reason length)', async () => {
    const completion = await routeB().chat.completions.create({
      model: 'memgate/default',
      messages: user,
      max_completion_tokens: 2,
    });
    expect(completion.choices[0]?.finish_reason).toBe('length');
    expect(completion.usage?.completion_tokens).toBe(2);
  });

  it('stream_options.include_usage adds a usage chunk, and leaves it out when not asked', async () => {
    for (const include_usage of [true, false]) {
      const stream = await routeB().chat.completions.create({
        model: 'memgate/default',
        messages: user,
        stream: true,
        stream_options: { include_usage },
      });
      let usage: unknown;
      for await (const chunk of stream) usage ??= chunk.usage ?? undefined;
      expect(usage !== undefined).toBe(include_usage);
    }
  });

  it.each([
    [{ n: 2 }, 'n'],
    [{ response_format: { type: 'json_object' } }, 'response_format'],
    [{ tool_choice: 'required', tools: [{ type: 'function', function: { name: 'f' } }] }, 'tool_choice'],
  ])('the extractive responder refuses %j with a clear 400', async (fields, param) => {
    for (const stream of [false, true]) {
      const error = (await routeB()
        .chat.completions.create({ model: 'memgate/default', messages: user, stream, ...fields } as never)
        .catch((caught: unknown) => caught)) as InstanceType<typeof OpenAI.BadRequestError>;
      expect(error).toBeInstanceOf(OpenAI.BadRequestError);
      expect(error.param).toBe(param);
      expect(error.message).toContain('memgate/extractive');
    }
  });

  it('accepts n: 1 and response_format text', async () => {
    const completion = await routeB().chat.completions.create({
      model: 'memgate/default',
      messages: user,
      n: 1,
      response_format: { type: 'text' },
    });
    expect(completion.choices[0]?.message.content).toBe('Refunds take five business days.');
  });

  it('the operator upstream receives n, response_format, max_completion_tokens and stream_options as sent', async () => {
    const fields = {
      n: 2,
      response_format: { type: 'json_object' as const },
      max_completion_tokens: 9,
      stream_options: { include_usage: true },
    };
    const stream = await client(`${operator.url}/api/v1/proxy/default`).chat.completions.create({
      model: 'memgate/default',
      messages: user,
      stream: true,
      ...fields,
    });
    let usage: unknown;
    for await (const chunk of stream) usage ??= chunk.usage ?? undefined;
    expect(stub.requests[0]?.body).toMatchObject(fields);
    expect(usage).toMatchObject({ total_tokens: expect.any(Number) });
  });
});

describe('streamed tool calls', () => {
  it('arrive delta by delta, as the upstream sent them, never collapsed', async () => {
    const pieces = ['{"ci', 'ty', '":"Pa', 'ris"}'];
    stub.setBehavior({ toolCall: { id: 'call_1', name: 'get_weather', arguments: pieces } });
    const stream = await client(routeA).chat.completions.create({
      model: 'gpt-x',
      messages: user,
      stream: true,
      tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } }],
    });
    const deltas: string[] = [];
    let name: string | undefined;
    for await (const chunk of stream) {
      const call = chunk.choices[0]?.delta.tool_calls?.[0];
      name ??= call?.function?.name;
      if (call?.function?.arguments) deltas.push(call.function.arguments);
    }
    expect(name).toBe('get_weather');
    expect(deltas).toEqual(pieces);
  });
});

describe('GET …/models', () => {
  it('route B lists the default model', async () => {
    const page = await client(`${proxy.url}/api/v1/proxy/default`).models.list();
    expect(page.data).toEqual([
      { id: 'memgate/default', object: 'model', created: expect.any(Number), owned_by: 'memgate' },
    ]);
  });

  it('route A forwards to the target /models with the target key', async () => {
    stub.setBehavior({ model: 'gpt-target', headers: { 'x-request-id': 'req_models' } });
    const { data, response } = await client(routeA).models.list().withResponse();
    expect(data.data.map((model) => model.id)).toEqual(['gpt-target']);
    expect(response.headers.get('x-request-id')).toBe('req_models');
    expect(stub.requests[0]).toMatchObject({
      method: 'GET',
      path: '/v1/models',
      headers: { authorization: `Bearer ${KEY}` },
    });
  });

  it('route B retrieves the default model by its id, slash and all; another id is a 404 in the OpenAI shape', async () => {
    const openai = client(`${proxy.url}/api/v1/proxy/default`);
    // The SDK percent-encodes the slash; Python's sends it as is.
    expect(await openai.models.retrieve('memgate/default')).toEqual({
      id: 'memgate/default',
      object: 'model',
      created: expect.any(Number),
      owned_by: 'memgate',
    });
    const raw = await fetch(`${proxy.url}/api/v1/proxy/default/models/memgate/default`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(await raw.json()).toMatchObject({ id: 'memgate/default' });
    const missing = await fetch(`${proxy.url}/api/v1/proxy/default/models/gpt-4o`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({
      error: {
        message: "The model 'gpt-4o' does not exist: this route serves memgate/default",
        type: 'not_found_error',
        param: null,
        code: 'model_not_found',
      },
    });
    await expect(openai.models.retrieve('nope')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });

  it('route A forwards a retrieve to the target /models/{id}, the id as written, whatever the base URL form', async () => {
    const { host } = new URL(stub.url);
    for (const base of [stub.url, encodeURIComponent(stub.url), `http:/${host}/v1`]) {
      stub.requests.length = 0;
      const path = `${proxy.url}/api/v1/proxy/${base}/${KEY}/models/meta-llama/Llama-3-8B`;
      const found = await fetch(path, { headers: { authorization: `Bearer ${token}` } });
      expect(found.status, base).toBe(200);
      expect(await found.json()).toMatchObject({ id: 'meta-llama/Llama-3-8B', object: 'model' });
      expect(stub.requests[0]).toMatchObject({
        method: 'GET',
        path: '/v1/models/meta-llama/Llama-3-8B',
        headers: { authorization: `Bearer ${KEY}` },
      });
    }
    // Gemini lists ids such as models/gemini-2.0-flash: the first /models/ after the key is the endpoint.
    const gemini = await client(routeA).models.retrieve('models/gemini-2.0-flash');
    expect(gemini.id).toBe('models/gemini-2.0-flash');
    expect(stub.requests.at(-1)?.path).toBe('/v1/models/models%2Fgemini-2.0-flash');
    await expect(client(routeA).models.retrieve('missing')).rejects.toBeInstanceOf(OpenAI.NotFoundError);
    // An id that would climb out of /models/ at a target that decodes it (dots between plain slashes never get
    // here: every URL parser on the way resolves them).
    const escaping = await new Promise<number>((resolve, reject) => {
      const path = `/api/v1/proxy/${encodeURIComponent(stub.url)}/${KEY}/models/a%2F..%2F..%2Ffiles`;
      get(`${proxy.url}${path}`, { headers: { authorization: `Bearer ${token}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      }).on('error', reject);
    });
    expect(escaping).toBe(400);
    expect(stub.requests.at(-1)?.path).not.toContain('files');
  });

  it('needs the proxy scope, and another method on an endpoint is a 405 naming the one it takes', async () => {
    const reader = await tokenFor('dora', { scope: 'context:read' });
    const denied = await fetch(`${proxy.url}/api/v1/proxy/default/models`, {
      headers: { authorization: `Bearer ${reader}` },
    });
    expect(denied.status).toBe(403);
    const post = await fetch(`${proxy.url}/api/v1/proxy/default/models`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
    });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    expect(await post.json()).toMatchObject({
      error: {
        type: 'invalid_request_error',
        code: 'method_not_allowed',
        message: 'POST is not allowed here; use GET, HEAD',
      },
    });
    for (const path of [`${routeA}/chat/completions`, `${proxy.url}/api/v1/proxy/default/responses`]) {
      const got = await fetch(path, { headers: { authorization: `Bearer ${token}` } });
      expect([got.status, got.headers.get('allow')], path).toEqual([405, 'POST']);
    }
    const retrieve = await fetch(`${proxy.url}/api/v1/proxy/default/models/memgate/default`, { method: 'DELETE' });
    expect([retrieve.status, retrieve.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });
});
