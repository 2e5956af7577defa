import { getEventListeners } from 'node:events';
import { createServer } from 'node:net';
import { MemgateError } from '@memgate/core';
import { afterAll, describe, expect, it } from 'vitest';
import { startUpstreamStub } from '../../../../test/support/upstream-stub.ts';
import { createTargetGuard } from '../ssrf/index.ts';
import { createUpstreamModel, UpstreamStatusError } from './index.ts';

const stub = await startUpstreamStub();
afterAll(() => stub.close());
const guard = createTargetGuard({ allowPrivate: true });
const model = createUpstreamModel({
  baseUrl: stub.url,
  apiKey: 'sk-default-key',
  upstreamModel: 'llama-3',
  timeoutMs: 5000,
  guard,
});
const request = { model: 'memgate/default', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('upstream ChatModel (what the chat reuses)', () => {
  it('completes with the configured upstream model id and key', async () => {
    stub.setBehavior({ reply: 'hello there' });
    const completion = await model.complete(request, {});
    expect(completion.choices[0]?.message.content).toBe('hello there');
    expect(stub.requests.at(-1)?.body).toMatchObject({ model: 'llama-3', stream: false });
    expect(stub.requests.at(-1)?.headers.authorization).toBe('Bearer sk-default-key');
  });

  it('streams raw chunk payloads without [DONE]', async () => {
    stub.setBehavior({ chunks: ['a', 'b'] });
    const payloads: string[] = [];
    for await (const payload of model.stream(request, {})) payloads.push(payload);
    expect(payloads).toHaveLength(4);
    expect(payloads.map((payload) => JSON.parse(payload).choices[0].delta.content ?? '').join('')).toBe('ab');
  });

  it('fails a stream cut before [DONE] or a finish_reason, and takes one that ends with either as whole', async () => {
    const chunk = (content: string, finish: string | null = null) =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta: { content }, finish_reason: finish }] })}\n\n`;
    const read = async (body: string) => {
      stub.setBehavior({ garbage: body });
      const payloads: string[] = [];
      for await (const payload of model.stream(request, {})) payloads.push(payload);
      return payloads.length;
    };
    const cut = await read(chunk('Paris ') + chunk('is ')).catch((error: unknown) => error);
    expect(cut).toBeInstanceOf(MemgateError);
    expect(cut).toMatchObject({ code: 'upstream_stream_failed' });
    expect(await read(chunk('Paris ') + chunk('is sunny.', 'stop'))).toBe(2);
    expect(await read(`${chunk('Paris ')}${chunk('is sunny.')}data: [DONE]\n\n`)).toBe(2);
  });

  it("keeps a base URL's query after the endpoint's path (Azure's api-version)", async () => {
    stub.setBehavior({ reply: 'from azure' });
    const azure = createUpstreamModel({ baseUrl: `${stub.url}/?api-version=2024-10-21`, timeoutMs: 5000, guard });
    const completion = await azure.complete(request, {});
    expect(completion.choices[0]?.message.content).toBe('from azure');
    expect(stub.requests.at(-1)?.path).toBe(`${new URL(stub.url).pathname}/chat/completions?api-version=2024-10-21`);
    await azure.relay({ method: 'GET', path: 'models' }, {});
    expect(stub.requests.at(-1)?.path).toBe(`${new URL(stub.url).pathname}/models?api-version=2024-10-21`);
  });

  it('raises an upstream error status with its body, without the key', async () => {
    stub.setBehavior({ error: { status: 401, body: { error: { message: 'bad key' } } } });
    const error = await model.complete(request, {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamStatusError);
    expect(error).toMatchObject({ status: 401, body: '{"error":{"message":"bad key"}}' });
    expect(String((error as Error).message)).not.toContain('sk-default-key');
  });

  it('says in the cause of an unreachable upstream which network error it was, without the URL', async () => {
    // A port that was just free: nothing listens there, so the connection is refused.
    const server = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const { port } = server.address() as { port: number };
    await new Promise((resolve) => server.close(resolve));
    const gone = createUpstreamModel({
      baseUrl: `http://127.0.0.1:${port}/v1`,
      apiKey: 'sk-gone',
      timeoutMs: 5000,
      guard,
    });
    const error = await gone.complete(request, {}).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(MemgateError);
    expect(error).toMatchObject({ code: 'upstream_unreachable', message: 'upstream is unreachable' });
    const cause = String((error as Error).cause);
    expect(cause).toBe('Error: ECONNREFUSED');
    expect(cause).not.toContain(String(port));
  });

  it('stops the upstream call when the caller aborts', async () => {
    stub.setBehavior({ hang: true });
    const controller = new AbortController();
    const gone = stub.nextDisconnect();
    const received = stub.nextRequest();
    const pending = model.complete(request, { signal: controller.signal }).catch((caught: unknown) => caught);
    await received;
    controller.abort();
    await gone;
    expect(await pending).toBeInstanceOf(Error);
  });
});

describe("the caller's signal after the call", () => {
  it('keeps no listener of a passthrough once its body is read, and none of a call that failed', async () => {
    stub.setBehavior({});
    const controller = new AbortController();
    const raw = await model.passthrough(request, { signal: controller.signal });
    // While the body is unread a disconnect must still stop the call.
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
    for await (const _ of raw.body) {
      // drained
    }
    await new Promise((resolve) => setImmediate(resolve));
    expect(getEventListeners(controller.signal, 'abort')).toHaveLength(0);

    const unreachable = createUpstreamModel({ baseUrl: 'http://127.0.0.1:9', apiKey: 'k', timeoutMs: 5000, guard });
    const failed = new AbortController();
    await expect(unreachable.passthrough(request, { signal: failed.signal })).rejects.toBeInstanceOf(Error);
    expect(getEventListeners(failed.signal, 'abort')).toHaveLength(0);
  });
});

describe('what a passthrough sends', () => {
  const callerJson = '{ "messages": [{"role":"user","content":"hi"}],\n  "model": "memgate/default" }';
  const answered = async (raw: Promise<{ body: AsyncIterable<Uint8Array> }>) => {
    for await (const _ of (await raw).body) {
      // drained
    }
    return stub.requests.at(-1);
  };

  it("the caller's JSON as written, when the model rewrites nothing", async () => {
    stub.setBehavior({});
    const target = createUpstreamModel({ baseUrl: stub.url, timeoutMs: 5000, guard });
    expect((await answered(target.passthrough(request, { callerJson })))?.text).toBe(callerJson);
    const relayed = target.relay({ method: 'POST', path: 'responses', body: request, callerJson }, {});
    expect((await answered(relayed))?.text).toBe(callerJson);
    // Without it, the request serialised.
    expect((await answered(target.passthrough(request, {})))?.text).toBe(JSON.stringify(request));
  });

  it('the request with the upstream model id, when one is configured, whatever the caller wrote', async () => {
    stub.setBehavior({});
    const sent = await answered(model.passthrough(request, { callerJson }));
    expect(sent?.text).toBe(JSON.stringify({ ...request, model: 'llama-3' }));
  });
});
