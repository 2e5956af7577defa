import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createFloodWriter, type FloodBehavior, type FloodWatch } from './upstream-flood.ts';
import {
  modelList,
  responseObject,
  type StubToolCall,
  toolCallCompletion,
  toolCallDeltas,
  writeResponseEvents,
} from './upstream-stub-openai.ts';

/** One request the stub received, as the upstream saw it. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
  /** The body's bytes as received, decoded as UTF-8 (what a client sent, byte for byte). */
  text: string;
}

/**
 * What the stub does with the next requests (`/chat/completions`, `/responses`, `GET /models`). `reply` is the assistant text; streaming splits it
 * into `chunks` (default: words). Behaviours compose: e.g. `{ chunkDelayMs: 50, failAfterChunks: 2 }`.
 */
export interface StubBehavior {
  reply?: string;
  /** Explicit content pieces of the stream (default: `reply` split after each space). */
  chunks?: string[];
  /** Answer with this status and body instead of a completion. */
  error?: { status: number; body: unknown; headers?: Record<string, string> };
  /** Wait this long before answering (headers included). */
  delayMs?: number;
  /** Never answer; the request stays open until the client goes away or the stub closes. */
  hang?: boolean;
  /** Delay between streamed chunks. */
  chunkDelayMs?: number;
  /** After this many content chunks, stop sending but keep the connection open (silence). */
  stallAfterChunks?: number;
  /** After this many content chunks, destroy the socket (mid-stream failure). */
  failAfterChunks?: number;
  /** Send status 200 and the start of a JSON body, then nothing until the client goes away (a stalled answer). */
  stallBody?: boolean;
  /** Send this raw text as the body with status 200 (garbage). */
  garbage?: string;
  /** With `garbage`: the status and headers at once, the body this much later. */
  garbageDelayMs?: number;
  /** Send a 3xx redirect to this location. */
  redirectTo?: string;
  model?: string;
  /** Answer with this tool call instead of text (chat completions and /responses). */
  toolCall?: StubToolCall;
  /** Extra headers on every answer (request id, rate limits…). */
  headers?: Record<string, string>;
  /** Answer 200 with this many bytes (a JSON completion, or SSE chunks when streaming), as fast as they are taken. */
  flood?: FloodBehavior;
}

export interface UpstreamStub {
  /** Base URL, e.g. http://127.0.0.1:PORT/v1 (append /chat/completions). */
  url: string;
  requests: RecordedRequest[];
  setBehavior(behavior: StubBehavior): void;
  /** Resolves when a client disconnects before the stub finished its answer (an aborted upstream call). */
  nextDisconnect(): Promise<RecordedRequest>;
  /** Resolves when the next request has been received (its body read). */
  nextRequest(): Promise<RecordedRequest>;
  /** Count of requests whose client went away before the answer was finished. */
  readonly disconnects: number;
  /** The last `flood` answer: bytes written, and when its writer stalls for want of a reader. */
  readonly flood: FloodWatch;
  close(): Promise<void>;
}

type Waiter = (request: RecordedRequest) => void;

function completionOf(reply: string, model: string) {
  const words = reply.split(/\s+/).filter(Boolean).length;
  return {
    id: `chatcmpl-stub-${Date.now()}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: reply }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 10, completion_tokens: words, total_tokens: 10 + words },
  };
}

function chunkLine(id: string, model: string, delta: Record<string, unknown>, finish: string | null): string {
  const chunk = {
    id,
    object: 'chat.completion.chunk',
    created: 1,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
  };
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

function usageLine(id: string, model: string, usage: unknown): string {
  return `data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created: 1, model, choices: [], usage })}\n\n`;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A request's path without its query (`?api-version=…`). */
const pathOf = (req: IncomingMessage) => (req.url ?? '').split('?')[0] ?? '';

/** A local OpenAI-compatible upstream for tests and benchmarks: records requests, answers as told. */
export async function startUpstreamStub(
  options: {
    behavior?: StubBehavior;
    basePath?: string;
    /** Keep each request in `requests` (default); a benchmark's stub answers thousands and reads none. */
    record?: boolean;
    /** Node's limit on a request's line and headers (default 16 KB), raised by tests that send longer paths. */
    maxHeaderSize?: number;
  } = {},
): Promise<UpstreamStub> {
  const basePath = options.basePath ?? '/v1';
  let behavior: StubBehavior = options.behavior ?? {};
  const requests: RecordedRequest[] = [];
  const disconnectWaiters: Waiter[] = [];
  const requestWaiters: Waiter[] = [];
  let disconnects = 0;
  const flooder = createFloodWriter();

  async function readBody(req: IncomingMessage): Promise<{ body: unknown; text: string }> {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const text = Buffer.concat(parts).toString('utf8');
    try {
      return { body: text === '' ? undefined : JSON.parse(text), text };
    } catch {
      return { body: text, text };
    }
  }

  async function answer(req: IncomingMessage, res: ServerResponse, recorded: RecordedRequest, gone: () => boolean) {
    const now = behavior;
    const body = (recorded.body ?? {}) as {
      stream?: boolean;
      model?: string;
      stream_options?: { include_usage?: boolean };
    };
    const model = now.model ?? body.model ?? 'stub-model';
    const reply = now.reply ?? 'Hello from the stub upstream.';
    if (now.delayMs) await pause(now.delayMs);
    if (now.hang || gone()) return;
    if (now.flood) return flooder.write(res, now.flood, body.stream === true, gone);
    if (now.redirectTo) {
      res.writeHead(302, { location: now.redirectTo }).end();
      return;
    }
    if (now.headers) for (const [name, value] of Object.entries(now.headers)) res.setHeader(name, value);
    if (now.error) {
      res.writeHead(now.error.status, { 'content-type': 'application/json', ...now.error.headers });
      res.end(typeof now.error.body === 'string' ? now.error.body : JSON.stringify(now.error.body));
      return;
    }
    if (now.stallBody) {
      res.writeHead(200, { 'content-type': 'application/json' }).write('{"id":"stalled",');
      return;
    }
    if (now.garbage !== undefined) {
      res.writeHead(200, { 'content-type': body.stream ? 'text/event-stream' : 'application/json' });
      if (now.garbageDelayMs) {
        res.flushHeaders();
        await pause(now.garbageDelayMs);
      }
      res.end(now.garbage);
      return;
    }
    const modelAt = pathOf(req).indexOf('/models/');
    if (req.method === 'GET' && modelAt >= 0) {
      // Retrieve model: the id as the path holds it (decoded), or a 404 for the stub's `missing`.
      const id = decodeURIComponent(pathOf(req).slice(modelAt + '/models/'.length));
      const found = id !== 'missing';
      res.writeHead(found ? 200 : 404, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          found
            ? { id, object: 'model', created: 1, owned_by: 'stub' }
            : {
                error: {
                  message: 'no such model',
                  type: 'invalid_request_error',
                  param: null,
                  code: 'model_not_found',
                },
              },
        ),
      );
      return;
    }
    if (req.method === 'GET' && pathOf(req).endsWith('/models')) {
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(modelList(model)));
      return;
    }
    if (pathOf(req).endsWith('/responses')) {
      if (!body.stream) {
        const response = responseObject(reply, model, now.toolCall);
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(response));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      writeResponseEvents(res, model, now.chunks ?? reply.split(/(?<= )/));
      return;
    }
    if (!pathOf(req).endsWith('/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
      return;
    }
    if (!body.stream) {
      const completion = now.toolCall ? toolCallCompletion(model, now.toolCall) : completionOf(reply, model);
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.flushHeaders();
    const id = `chatcmpl-stub-${Date.now()}`;
    res.write(chunkLine(id, model, { role: 'assistant', content: '' }, null));
    if (now.toolCall) {
      for (const delta of toolCallDeltas(now.toolCall)) res.write(chunkLine(id, model, delta, null));
      res.write(chunkLine(id, model, {}, 'tool_calls'));
      if (body.stream_options?.include_usage) res.write(usageLine(id, model, completionOf('', model).usage));
      res.end('data: [DONE]\n\n');
      return;
    }
    const pieces = now.chunks ?? reply.split(/(?<= )/);
    for (let index = 0; index < pieces.length; index += 1) {
      if (now.failAfterChunks !== undefined && index === now.failAfterChunks) {
        // Flush what was sent, then cut the connection without finishing the chunked body.
        await new Promise<void>((resolve) => res.write(': flush\n\n', () => resolve()));
        res.socket?.end();
        res.socket?.destroySoon();
        return;
      }
      if (now.stallAfterChunks !== undefined && index === now.stallAfterChunks) return;
      if (now.chunkDelayMs) await pause(now.chunkDelayMs);
      if (gone()) return;
      res.write(chunkLine(id, model, { content: pieces[index] }, null));
    }
    res.write(chunkLine(id, model, {}, 'stop'));
    if (body.stream_options?.include_usage) res.write(usageLine(id, model, completionOf(reply, model).usage));
    res.end('data: [DONE]\n\n');
  }

  const server = createServer({ maxHeaderSize: options.maxHeaderSize ?? 16_384 }, (req, res) => {
    void (async () => {
      const recorded: RecordedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: { ...req.headers },
        ...(await readBody(req)),
      };
      if (options.record !== false) requests.push(recorded);
      for (const waiter of requestWaiters.splice(0)) waiter(recorded);
      let finished = false;
      let closed = false;
      res.on('finish', () => {
        finished = true;
      });
      res.on('close', () => {
        closed = true;
        if (finished) return;
        disconnects += 1;
        for (const waiter of disconnectWaiters.splice(0)) waiter(recorded);
      });
      if (!recorded.path.startsWith(basePath)) {
        res.writeHead(404).end();
        return;
      }
      await answer(req, res, recorded, () => closed);
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
      else res.destroy();
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}${basePath}`,
    requests,
    get disconnects() {
      return disconnects;
    },
    flood: flooder.watch,
    setBehavior(next) {
      behavior = next;
    },
    nextDisconnect: () => new Promise((resolve) => disconnectWaiters.push(resolve)),
    nextRequest: () => new Promise((resolve) => requestWaiters.push(resolve)),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
