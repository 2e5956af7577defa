import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { tokenFor } from '../support/tokens.ts';
import { startUpstreamStub } from '../support/upstream-stub.ts';
import { createFakeContextStore, startProxy } from './harness.ts';

const stub = await startUpstreamStub();
const fake = createFakeContextStore();
const proxy = await startProxy({ contextStore: fake.store, keepAliveMs: 30 });
const token = await tokenFor('bob', { scope: 'proxy' });
afterAll(async () => {
  await proxy.close();
  await stub.close();
});
beforeEach(() => stub.setBehavior({}));

/**
 * Route A's base URL as one percent-encoded segment (served at once, the body and the client's disconnect read from
 * the Node request) or as written (re-dispatched as a new Request: read from that Request).
 */
let target = stub.url;

function streamRequest(signal?: AbortSignal) {
  return fetch(`${proxy.url}/api/v1/proxy/${target}/sk-stream-key/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'm', stream: true, messages: [{ role: 'user', content: 'stream please' }] }),
    ...(signal ? { signal } : {}),
  });
}

/** Reads the body until `predicate` holds for the text so far. */
async function readUntil(res: Response, predicate: (text: string) => boolean): Promise<string> {
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = '';
  while (!predicate(text)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  reader.releaseLock();
  return text;
}

describe.each([
  ['percent-encoded', encodeURIComponent(stub.url)],
  ['as written', stub.url],
])('proxy streaming, base URL %s', (_form, base) => {
  beforeEach(() => {
    target = base;
  });

  it('forwards the upstream events byte for byte', async () => {
    stub.setBehavior({ chunks: ['a', 'b', 'c'] });
    const res = await streamRequest();
    expect(res.headers.get('content-type')).toContain('text/event-stream');
    const text = await res.text();
    const direct = await (
      await fetch(`${stub.url}/chat/completions`, {
        method: 'POST',
        body: JSON.stringify({ model: 'm', stream: true, messages: [] }),
      })
    ).text();
    const strip = (body: string) => body.replace(/chatcmpl-stub-\d+/g, 'ID');
    expect(strip(text)).toBe(strip(direct));
  });

  it('aborts the upstream call when the client disconnects', async () => {
    stub.setBehavior({ chunks: ['first ', 'second'], stallAfterChunks: 1 });
    const controller = new AbortController();
    const disconnected = stub.nextDisconnect();
    const res = await streamRequest(controller.signal);
    await readUntil(res, (text) => text.includes('first'));
    controller.abort();
    const request = await disconnected;
    expect(request.path).toBe('/v1/chat/completions');
  });

  it('sends keep-alive comments while the upstream is silent', async () => {
    stub.setBehavior({ chunks: ['hello ', 'later'], stallAfterChunks: 1 });
    const controller = new AbortController();
    const res = await streamRequest(controller.signal);
    const text = await readUntil(res, (sofar) => sofar.includes(': keep-alive\n\n'));
    controller.abort();
    expect(text).toContain('hello');
    expect(text).toContain(': keep-alive\n\n');
  });

  it('ends cleanly with an error event and [DONE] when the upstream fails midway', async () => {
    stub.setBehavior({ chunks: ['one ', 'two ', 'three'], failAfterChunks: 2 });
    const res = await streamRequest();
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('two ');
    expect(text).toContain('"code":"upstream_stream_failed"');
    expect(text.endsWith('data: [DONE]\n\n')).toBe(true);
  });

  // A model's stream says why it stopped (finish_reason) or ends with [DONE]: with neither, the connection was closed
  // on the way (a proxy or server cut it) and the client must not take the text so far for the whole answer.
  it('ends with an error event, capturing nothing, when the upstream closes cleanly with neither [DONE] nor a finish_reason', async () => {
    const chunk = (delta: object, finish: string | null) =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    const stored = () => fake.added.flatMap((add) => add.input.documents.map((document) => document.content)).join();
    stub.setBehavior({ garbage: chunk({ role: 'assistant', content: 'Refunds take' }, null) });
    const cut = await (await streamRequest()).text();
    expect(cut).toContain('Refunds take');
    expect(cut).toContain('"code":"upstream_stream_failed"');
    expect(cut.endsWith('data: [DONE]\n\n')).toBe(true);
    // Either ending is whole: a finish_reason without [DONE] (one is added), [DONE] without a finish_reason.
    for (const body of [
      chunk({ content: 'Five days.' }, 'stop'),
      `${chunk({ content: 'Five business days.' }, null)}data: [DONE]\n\n`,
    ]) {
      stub.setBehavior({ garbage: body });
      const whole = await (await streamRequest()).text();
      expect(whole).not.toContain('"error"');
      expect(whole.endsWith('data: [DONE]\n\n')).toBe(true);
    }
    await proxy.background.idle();
    expect(stored()).toContain('Five days.');
    expect(stored()).toContain('Five business days.');
    expect(stored()).not.toContain('Refunds take');
  });

  it('stores the first choice of a streamed answer with several (n), as of a non-streamed one', async () => {
    const event = (index: number, content: string) =>
      `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', choices: [{ index, delta: { content }, finish_reason: null }] })}\n\n`;
    // OpenAI interleaves the choices' chunks, each chunk naming its choice by index.
    stub.setBehavior({
      garbage: `${event(0, 'Red')}${event(1, 'Blue')}${event(1, ' sky.')}${event(0, ' wine.')}data: [DONE]\n\n`,
    });
    await (await streamRequest()).text();
    await proxy.background.idle();
    const reply = fake.added.at(-1)?.input.documents.at(-1)?.content;
    expect(reply).toContain('Red wine.');
    expect(reply).not.toContain('Blue');
  });

  it('ends a Responses stream its upstream closed before a last event (completed, incomplete, failed) with an error event', async () => {
    const event = (type: string, fields: object) => `data: ${JSON.stringify({ type, ...fields })}\n\n`;
    const begun = (delta: string) =>
      `${event('response.created', { sequence_number: 0 })}${event('response.output_text.delta', { sequence_number: 1, delta })}`;
    const respond = async () =>
      (
        await fetch(`${proxy.url}/api/v1/proxy/${target}/sk-stream-key/responses`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'm', stream: true, input: 'How long do refunds take?' }),
        })
      ).text();
    const stored = () => fake.added.flatMap((add) => add.input.documents.map((document) => document.content)).join();
    stub.setBehavior({ garbage: begun('Refunds take') });
    const cut = await respond();
    expect(cut.startsWith(begun('Refunds take'))).toBe(true);
    const ending = /^data: (.*)$/m.exec(cut.slice(begun('Refunds take').length))?.[1] ?? '';
    expect(JSON.parse(ending)).toMatchObject({
      type: 'error',
      code: 'upstream_stream_failed',
      sequence_number: 2,
    });
    stub.setBehavior({ garbage: `${begun('Five days.')}${event('response.completed', { sequence_number: 2 })}` });
    expect(await respond()).not.toContain('"error"');
    await proxy.background.idle();
    expect(stored()).toContain('Five days.');
    expect(stored()).not.toContain('Refunds take');
  });

  it('aborts a non-streamed upstream call when the client disconnects', async () => {
    stub.setBehavior({ hang: true });
    const controller = new AbortController();
    const received = stub.nextRequest();
    const disconnected = stub.nextDisconnect();
    const pending = fetch(`${proxy.url}/api/v1/proxy/${target}/sk-stream-key/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'wait' }] }),
      signal: controller.signal,
    }).catch(() => 'aborted');
    await received;
    controller.abort();
    expect(await pending).toBe('aborted');
    expect((await disconnected).path).toBe('/v1/chat/completions');
  });
});
