import { setTimeout as sleep } from 'node:timers/promises';
import { addBody, queryText } from '../lib/corpus.ts';
import type { BenchEnv } from '../lib/env.ts';
import { expectStatus, getJson, postJson } from '../lib/http.ts';
import { interleaved } from '../lib/interleave.ts';
import { atMost, type Figure, figure } from '../lib/results.ts';
import { addedLatency, round, summarize } from '../lib/stats.ts';
import { conversation } from './proxy.ts';

/** The caller of the defaults case: its own tenant, so the exchanges it stores never grow the search area's corpora. */
const USER = 'proxy-defaults';

/** The conversation of round `i`: the bench's 20 messages with a question about a chunk of the caller's corpus last. */
export function bodyOf(i: number) {
  const messages = conversation();
  messages[messages.length - 1] = { role: 'user', content: `What do my notes say about ${queryText(i)}?` };
  return { model: 'gpt-4o-mini', messages, temperature: 0.2 };
}

/** The caller's stored conversations (view/docs, every page). */
async function conversationsOf(env: BenchEnv, authorization: string): Promise<number> {
  let count = 0;
  let cursor: string | null = null;
  do {
    const query: string = `context_type=conversation&limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const page = expectStatus(
      await getJson<{ documents: unknown[]; nextCursor: string | null }>(
        `${env.server.url}/api/v1/context/view/docs?${query}`,
        { authorization },
      ),
      200,
      'view/docs',
    );
    count += page.body.documents.length;
    cursor = page.body.nextCursor;
  } while (cursor);
  return count;
}

/**
 * The proxy as a user gets it without configuration (issue 17): filtering, context and storing on. The caller's
 * tenant holds the 1,000-chunk corpus (added over HTTP first); each round asks about a different chunk of it, direct
 * to the stub, through memgate with storing off and with the defaults, interleaved. What storing costs the requests
 * that follow a capture shows as defaults − storing off (paired by round); every accepted exchange must be stored.
 */
export async function proxyDefaults(
  env: BenchEnv,
): Promise<{ figures: Figure[]; notes: string[]; series: Record<string, number[]> }> {
  const authorization = `Bearer ${await env.token(USER)}`;
  for (let call = 0; call < 10; call++) {
    const body = addBody({ firstSeed: call * 10, documents: 10, chunksPerDocument: 10, source: 'corpus' });
    expectStatus(await postJson(`${env.server.url}/api/v1/context/add`, body, { authorization }), 201, 'corpus add');
  }
  const rounds = env.quick ? 200 : 1000;
  const warmup = env.quick ? 40 : 150;
  const memgate = env.proxyUrl(env.stub.url);
  const injected: number[] = [];
  const timed = (url: string, headers: Record<string, string>, what: string, keep?: number[]) => async (i: number) => {
    const response = expectStatus(await postJson(url, bodyOf(i), headers), 200, what);
    keep?.push(Number(response.headers['x-memgate-context-injected'] ?? Number.NaN));
    return response.ms;
  };
  const samples = await interleaved(
    {
      direct: timed(`${env.stub.url}/chat/completions`, { authorization: 'Bearer k' }, 'direct to stub'),
      storingOff: timed(memgate, { authorization, 'x-memgate-store': 'off' }, 'memgate storing off'),
      defaults: timed(memgate, { authorization }, 'memgate defaults', injected),
    },
    { rounds, warmup },
  );
  // Every exchange the defaults requests captured (warm-up included) must be stored: wait for the last batches.
  const accepted = rounds + warmup;
  let stored = await conversationsOf(env, authorization);
  for (let waited = 0; stored < accepted && waited < 30; waited++) {
    await sleep(1000);
    stored = await conversationsOf(env, authorization);
  }
  if (stored !== accepted) throw new Error(`${stored} of ${accepted} captured exchanges were stored`);
  const direct = samples.direct as number[];
  const defaults = addedLatency(samples.defaults as number[], direct);
  const storingOff = addedLatency(samples.storingOff as number[], direct);
  const storing = addedLatency(samples.defaults as number[], samples.storingOff as number[]);
  const ms = (value: number | undefined) => `${round(value ?? Number.NaN)} ms`;
  const raw = Object.fromEntries(Object.entries(samples).map(([name, list]) => [name, summarize(list)]));
  return {
    figures: [
      figure('added latency p50, defaults (filtering, context and storing on)', round(defaults.p50Difference), 'ms', {
        budget: atMost(5, '#17'),
        note: `storing off in the same rounds: ${ms(storingOff.p50Difference)}`,
      }),
      figure('added latency p99, defaults', round(defaults.p99Difference), 'ms', {
        note: `storing off: ${ms(storingOff.p99Difference)}`,
      }),
      figure(
        'what storing adds to the requests, p50 (defaults − storing off, paired by round)',
        round(storing.paired.p50),
        'ms',
        {
          note: `p99 of the paired differences ${ms(storing.paired.p99)}`,
        },
      ),
    ],
    notes: [
      `Defaults case: ${rounds} rounds after ${warmup} warm-up rounds, each asking about a different chunk of the caller's own 1,000-chunk tenant (added over HTTP first), direct / memgate storing off / memgate defaults, interleaved at concurrency 1. Its exchanges grow that tenant (${stored} stored, every one accepted; checked with view/docs), never the search area's corpora.`,
      `Defaults round trips p50 / p99: direct ${ms(raw.direct?.p50)} / ${ms(raw.direct?.p99)}, storing off ${ms(raw.storingOff?.p50)} / ${ms(raw.storingOff?.p99)}, defaults ${ms(raw.defaults?.p50)} / ${ms(raw.defaults?.p99)}; context records injected per defaults request: median ${summarize(injected).p50}.`,
    ],
    series: { defaults: samples.defaults ?? [], defaultsStoringOff: samples.storingOff ?? [], defaultsDirect: direct },
  };
}
