import { Agent, request } from 'undici';

/** One keep-alive agent for every sequential sample, so each request reuses a warm connection like a real client. */
const agent = new Agent({ keepAliveTimeout: 30_000, connections: 32 });

export interface Timed<T> {
  status: number;
  body: T;
  headers: Record<string, string | string[] | undefined>;
  /** From sending the request to the whole body read, in ms. */
  ms: number;
}

/** POSTs JSON and reads the whole response, timing the round trip with `performance.now()`. */
export async function postJson<T = unknown>(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Timed<T>> {
  const payload = JSON.stringify(body);
  const started = performance.now();
  const response = await request(url, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json', ...headers },
    body: payload,
  });
  const text = await response.body.text();
  const ms = performance.now() - started;
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // Not JSON (e.g. an SSE body): the text is the body.
  }
  return { status: response.statusCode, body: parsed as T, headers: response.headers, ms };
}

/** GETs JSON (keep-alive, like postJson). */
export async function getJson<T = unknown>(url: string, headers: Record<string, string> = {}): Promise<Timed<T>> {
  const started = performance.now();
  const response = await request(url, { method: 'GET', dispatcher: agent, headers });
  const text = await response.body.text();
  const ms = performance.now() - started;
  return { status: response.statusCode, body: JSON.parse(text) as T, headers: response.headers, ms };
}

/** Fails loudly when a benchmark request did not succeed: a figure built on errors would be meaningless. */
export function expectStatus<T>(response: Timed<T>, status: number, what: string): Timed<T> {
  if (response.status !== status) {
    throw new Error(
      `${what}: expected ${status}, got ${response.status}: ${JSON.stringify(response.body).slice(0, 300)}`,
    );
  }
  return response;
}

export async function closeHttp(): Promise<void> {
  await agent.close();
}
