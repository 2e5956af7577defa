import { expectStatus, postJson } from '../lib/http.ts';

/** A memgate server the evaluation talks to over HTTP, and the upstream its route A forwards to. */
export interface EvalTarget {
  /** Base URL of the server, e.g. http://127.0.0.1:PORT. */
  url: string;
  /** A token of `user` with the scopes the evaluation needs (context read/write, proxy). */
  token(user: string): Promise<string>;
  /** Base URL of the recording upstream (route A's target). */
  upstreamUrl: string;
  /** The chat messages the upstream received in the last request, taken from its record. */
  takeForwarded(): { role: string; content: string }[];
}

/** One user per conversation (a user id may hold only [A-Za-z0-9._@:-]). */
export const userOf = (conversationId: string) => `locomo-${conversationId.replace(/[^A-Za-z0-9._@:-]/g, '_')}`;

export async function post<T>(
  target: EvalTarget,
  path: string,
  user: string,
  body: unknown,
  status: number,
  headers: Record<string, string> = {},
): Promise<T> {
  const response = await postJson<T>(`${target.url}${path}`, body, {
    authorization: `Bearer ${await target.token(user)}`,
    ...headers,
  });
  return expectStatus(response, status, `POST ${path}`).body;
}

/** Runs `work` over `items` with at most `limit` at once, results in the items' order. */
export async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}
