import { conversation } from '../areas/proxy.ts';
import { queryText } from './corpus.ts';
import type { BenchEnv } from './env.ts';
import { expectStatus, postJson } from './http.ts';

/** Queries no area sends (they use queryText(0…1023)), so the warm-up leaves no search result cached for them. */
const FIRST_QUERY = 5000;

/**
 * Brings the server and DynamoDB Local to their steady state before any area measures: a freshly started JVM spends
 * its first ~10,000 requests compiling on the same 2 cores (bench/OVER-BUDGET.md, "Search p50"), and the first area
 * used to pay for it: in a full run its filtering requests went from 5.35 ms p50 in the first quarter of its rounds to
 * 3.42 in the last, its passthrough p99 from 6.24 to 3.10 ms. For `seconds`, from 4 clients, the proxy with filtering
 * and context (storing off) and searches alternate in the smallest corpus's tenant: the same request paths the areas
 * measure (HTTP, auth, the tag read, the index query, the history filter, the upstream), without loading the larger
 * tenants (the memory area reads when those load). Returns the number of requests sent.
 */
export async function warmUp(env: BenchEnv, seconds: number): Promise<number> {
  const corpus = env.corpora[0];
  if (!corpus) return 0;
  const headers = { authorization: `Bearer ${await env.token(corpus.user)}` };
  const proxy = env.proxyUrl(env.stub.url);
  const search = `${env.server.url}/api/v1/context/search`;
  const completion = { model: 'gpt-4o-mini', messages: conversation(), temperature: 0.2 };
  const until = performance.now() + seconds * 1000;
  let sent = 0;
  const client = async () => {
    while (performance.now() < until) {
      expectStatus(await postJson(proxy, completion, { ...headers, 'x-memgate-store': 'off' }), 200, 'warm-up proxy');
      const text = queryText(FIRST_QUERY + (sent % 1000));
      const query = { query: text, similarity_threshold: 1, minimum_similarity_threshold: 0 };
      expectStatus(await postJson(search, query, headers), 202, 'warm-up search');
      sent += 2;
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  return sent;
}

/** Concurrent clients: the server and DynamoDB Local then work at once, as under the areas' loads. */
const CLIENTS = 4;
