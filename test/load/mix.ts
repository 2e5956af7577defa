// The request mix of the load run: out of every 20 requests, 5 adds, 5 searches, 3 views, 4 proxy completions to the
// local stub (half streamed) and 3 chat streams, spread deterministically over the users.

export type Kind = 'add' | 'search' | 'view' | 'proxy' | 'proxy-stream' | 'chat';

export interface Outcome {
  kind: Kind;
  status: number;
  ms: number;
}

export interface LoadRequest {
  kind: Kind;
  url: string;
  init: RequestInit;
  user: number;
  /** The add's unique word and file name, searched for afterwards. */
  word: string;
  fileName: string;
}

const SLOTS: Kind[] = [
  ...Array<Kind>(5).fill('add'),
  ...Array<Kind>(5).fill('search'),
  ...Array<Kind>(3).fill('view'),
  ...Array<Kind>(2).fill('proxy'),
  ...Array<Kind>(2).fill('proxy-stream'),
  ...Array<Kind>(3).fill('chat'),
];
const TOPICS = ['harbour', 'orchard', 'glacier', 'lantern', 'meadow', 'canyon', 'violin', 'pepper'];

/** A word no other add uses and that shares few character n-grams with the others (a scrambled counter). */
const wordOf = (n: number) => `q${((n * 2_654_435_761) % 2 ** 32).toString(36)}z`;

export function requestOf(n: number, ctx: { url: string; stubUrl: string; tokens: string[] }): LoadRequest {
  const kind = SLOTS[(n * 7) % SLOTS.length] as Kind;
  const user = (n * 13) % ctx.tokens.length;
  const topic = TOPICS[n % TOPICS.length] as string;
  const word = wordOf(n);
  const fileName = `note-${n}.md`;
  const headers = { authorization: `Bearer ${ctx.tokens[user]}`, 'content-type': 'application/json' };
  const post = (path: string, body: unknown): LoadRequest => ({
    kind,
    user,
    word,
    fileName,
    url: `${ctx.url}${path}`,
    init: { method: 'POST', headers, body: JSON.stringify(body) },
  });
  const question = [{ role: 'user', content: `What do my notes say about the ${topic}?` }];
  switch (kind) {
    case 'add':
      return post('/api/v1/context/add', {
        documents: [
          {
            content: `Note ${n} about the ${topic}: ${word} was seen near the ${topic} at dawn. ${'Details follow. '.repeat(n % 20)}`,
            fileName,
          },
        ],
        source: `load-${n % 5}`,
      });
    case 'search':
      return post('/api/v1/context/search', {
        query: `${topic} at dawn`,
        similarity_threshold: 1,
        minimum_similarity_threshold: 0.05,
        top_k: 10,
      });
    case 'view':
      return {
        kind,
        user,
        word,
        fileName,
        url: `${ctx.url}/api/v1/context/${n % 2 === 0 ? 'view' : 'view/docs'}?limit=50`,
        init: { headers },
      };
    case 'proxy':
    case 'proxy-stream':
      return post(`/api/v1/proxy/${ctx.stubUrl}/load-target-key/chat/completions`, {
        model: 'stub-model',
        messages: question,
        stream: kind === 'proxy-stream',
      });
    case 'chat':
      return post('/api/v1/chat/generate/stream', { chat_history: question });
  }
}

export function percentile(sorted: number[], p: number): number {
  return sorted.length === 0
    ? 0
    : (sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] as number);
}

/** Per kind: count, statuses and latency percentiles. */
export function summarize(outcomes: Outcome[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const kind of new Set(outcomes.map((o) => o.kind))) {
    const mine = outcomes.filter((o) => o.kind === kind);
    const statuses: Record<number, number> = {};
    for (const o of mine) statuses[o.status] = (statuses[o.status] ?? 0) + 1;
    const ms = mine.map((o) => o.ms).sort((a, b) => a - b);
    out[kind] =
      `${mine.length} requests, statuses ${JSON.stringify(statuses)}, ` +
      `p50 ${percentile(ms, 50).toFixed(0)} ms, p95 ${percentile(ms, 95).toFixed(0)} ms, p99 ${percentile(ms, 99).toFixed(0)} ms`;
  }
  return out;
}
