// The abusive requests of the load run (issue 12, "Freezes and exhaustion"): each one once took the event loop for
// seconds or answered 500. They run beside the ordinary mix; what they answer must be a 4xx or a 200, never a 5xx,
// and they must not delay anyone else's request (the /health probe measures that).

export type AbuseKind =
  | 'long-word-proxy'
  | 'long-word-chat'
  | 'tool-messages'
  | 'deep-proxy-default'
  | 'deep-proxy-target'
  | 'deep-chat-tool'
  | 'huge-upstream-body';

export interface AbusiveRequest {
  kind: AbuseKind;
  url: string;
  init: RequestInit;
  /** Statuses this request may answer (anything else is reported). */
  expected: number[];
  /** Text the answer must hold besides (an error code). */
  answerHolds?: string;
}

/** Lower-case letters with no space: one pre-token for the tokenizer, whose merge step was quadratic in its length. */
export function unspacedWord(length: number, seed = 1): string {
  const letters: string[] = [];
  let state = seed >>> 0 || 1;
  for (let index = 0; index < length; index += 1) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    letters.push(String.fromCharCode(97 + ((state >>> 16) % 26)));
  }
  return letters.join('');
}

/** Words of 2 to 9 random letters separated by spaces, `length` characters in all: prose no cache has seen. */
export function randomProse(length: number, seed = 1): string {
  const letters = unspacedWord(length, seed);
  const out: string[] = [];
  for (let at = 0; at < length; ) {
    const size = 2 + (letters.charCodeAt(at) % 8);
    out.push(letters.slice(at, at + size));
    at += size + 1;
  }
  return out.join(' ').slice(0, length);
}

/** `[[[…"x"…]]]` nested `depth` levels, as JSON text (built as text: a value that deep cannot be stringified). */
export function deeplyNested(depth: number): string {
  return `${'['.repeat(depth)}"x"${']'.repeat(depth)}`;
}

/**
 * A question, one assistant message that called a tool, then `count` tool results: all of them come after the last
 * user message, so the history filter keeps them, and it once paired each one with its caller by walking back over
 * every tool message before it (quadratic).
 */
export function toolMessages(count: number): string {
  const question = { role: 'user', content: 'what did the tools say?' };
  const call = {
    role: 'assistant',
    content: null,
    tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '{}' } }],
  };
  const result = JSON.stringify({ role: 'tool', tool_call_id: 'c', content: 'ok' });
  return `[${JSON.stringify(question)},${JSON.stringify(call)},${Array<string>(count).fill(result).join(',')}]`;
}

const PROXY_DEFAULT = '/api/v1/proxy/default/chat/completions';

/**
 * The abusive requests, built once per run (the bodies are megabytes). `hugeBodyTarget`, when given, is a route-A
 * base URL whose upstream answers with a body over the proxy's limit.
 */
export function abusiveRequests(ctx: {
  url: string;
  stubUrl: string;
  token: string;
  model: string;
  hugeBodyTarget?: string;
}): AbusiveRequest[] {
  const headers = { authorization: `Bearer ${ctx.token}`, 'content-type': 'application/json' };
  const post = (kind: AbuseKind, path: string, body: string, expected: number[]): AbusiveRequest => ({
    kind,
    url: `${ctx.url}${path}`,
    init: { method: 'POST', headers, body },
    expected,
  });
  const requests: AbusiveRequest[] = [
    post(
      'long-word-proxy',
      PROXY_DEFAULT,
      JSON.stringify({ model: ctx.model, messages: [{ role: 'user', content: unspacedWord(120_000) }] }),
      [200],
    ),
    post(
      'long-word-chat',
      '/api/v1/chat/generate/stream',
      JSON.stringify({ chat_history: [{ role: 'user', content: unspacedWord(100_000, 7) }] }),
      [200],
    ),
    post(
      'tool-messages',
      PROXY_DEFAULT,
      `{"model":${JSON.stringify(ctx.model)},"messages":${toolMessages(100_000)}}`,
      [200],
    ),
    post(
      'deep-proxy-default',
      PROXY_DEFAULT,
      `{"model":${JSON.stringify(ctx.model)},"messages":[{"role":"user","content":[{"type":"text","text":"hi","x":${deeplyNested(100_000)}}]}]}`,
      [400],
    ),
    post(
      'deep-proxy-target',
      `/api/v1/proxy/${ctx.stubUrl}/load-target-key/chat/completions`,
      `{"model":"stub-model","messages":[{"role":"user","content":"hi","extra":${deeplyNested(100_000)}}]}`,
      [400],
    ),
    post(
      'deep-chat-tool',
      '/api/v1/chat/generate/stream',
      `{"chat_history":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"deep","parameters":{"type":"object","x":${deeplyNested(100_000)}}}}]}`,
      [400],
    ),
  ];
  // Route A drops a non-streamed upstream body over 16 MB (502 `upstream_response_too_large`, DESIGN.md section 4):
  // a 502 by design here, counted as expected, not as a failure of another caller.
  if (ctx.hugeBodyTarget) {
    requests.push({
      ...post(
        'huge-upstream-body',
        `/api/v1/proxy/${ctx.hugeBodyTarget}/load-target-key/chat/completions`,
        JSON.stringify({ model: 'stub-model', messages: [{ role: 'user', content: 'hi' }] }),
        [502],
      ),
      answerHolds: '"code":"upstream_response_too_large"',
    });
  }
  return requests;
}

export interface AbuseOutcome {
  kind: AbuseKind;
  status: number;
  /** The status is one the request may answer (and a stream ended with [DONE] and no error event). */
  expected: boolean;
  ms: number;
}

/** Sends the abusive requests one after another, round and round, until stopped. */
export function startAbuse(requests: AbusiveRequest[]): { stop(): Promise<AbuseOutcome[]> } {
  const outcomes: AbuseOutcome[] = [];
  let running = true;
  const loop = (async () => {
    for (let n = 0; running && requests.length > 0; n += 1) {
      const request = requests[n % requests.length] as AbusiveRequest;
      const started = performance.now();
      let status = 0;
      let streamOk = true;
      let text = '';
      try {
        const response = await fetch(request.url, request.init);
        text = await response.text();
        status = response.status;
        if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
          streamOk = text.endsWith('data: [DONE]\n\n') && !text.includes('"error":');
        }
      } catch (error) {
        console.error(`load: abusive ${request.kind} failed: ${String(error)}`);
      }
      const expected =
        request.expected.includes(status) && streamOk && (!request.answerHolds || text.includes(request.answerHolds));
      outcomes.push({ kind: request.kind, status, expected, ms: performance.now() - started });
    }
  })();
  return {
    async stop() {
      running = false;
      await loop;
      return outcomes;
    },
  };
}
