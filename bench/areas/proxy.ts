import { paragraph, queryText } from '../lib/corpus.ts';
import type { BenchEnv } from '../lib/env.ts';
import { expectStatus, postJson, type Timed } from '../lib/http.ts';
import { interleaved } from '../lib/interleave.ts';
import { type AreaResult, atMost, figure } from '../lib/results.ts';
import { addedLatency, round, summarize } from '../lib/stats.ts';
import { proxyDefaults } from './proxy-defaults.ts';

/** The headers that turn history filtering, context injection and storing off: a pure passthrough. */
export const PASSTHROUGH = { 'x-memgate-filter': 'off', 'x-memgate-context': 'off', 'x-memgate-store': 'off' };
/** Filtering and context on (the defaults); storing off, so the corpus does not grow while it is measured. */
const FILTERING = { 'x-memgate-store': 'off' };

/** A 20-message conversation: a system prompt, 18 turns on mixed topics, and a question about the corpus last. */
export function conversation(): { role: string; content: string }[] {
  const turns = Array.from({ length: 18 }, (_, i) => ({
    role: i % 2 === 0 ? 'user' : 'assistant',
    content: paragraph(900 + i, 240),
  }));
  return [
    { role: 'system', content: 'You are a helpful assistant for the billing team.' },
    ...turns,
    // About a chunk of the caller's corpus, so context injection has relevant records to inject.
    { role: 'user', content: `What about ${queryText(0)}?` },
  ];
}

const BODY = { model: 'gpt-4o-mini', messages: conversation(), temperature: 0.2 };

/** Session 9's comparison of the two places of the stub (bench/lib/upstream.ts), measured in the same minutes. */
const INSTRUMENT =
  "Session 9 measured the stub in its own process (BENCH_UPSTREAM=child: the direct baseline then crosses a process boundary as a proxied call does) against the bench's process, 12 runs of --only=proxy alternated in three blocks (2026-11-24 15:46-16:10, load 6.6-15), medians of 6 runs each, p99 in ms: direct round trip 1.08 in-process, 8.27 child; passthrough round trip 9.68, 15.0; passthrough added p50 0.83, 0.78, p99 8.05 (3.95-10.5), 7.80 (2.89-21.5); Portkey added 14.9, 31. The child raised every round trip's p99 (one more process to schedule on 2 shared cores), not the added p99, so the stub stays in the bench's process (bench/OVER-BUDGET.md).";

/**
 * Proxy added latency (issue 4): non-streaming completions at concurrency 1, interleaved round by round: direct to
 * the stub, through memgate as a passthrough, through memgate with filtering and context on (the caller's tenant
 * holds 1,000 chunks), and through @portkey-ai/gateway to the same stub. Added = through − direct.
 */
export async function proxyLatency(env: BenchEnv): Promise<AreaResult> {
  const corpus = env.corpora.find((candidate) => candidate.size === 1000);
  if (!corpus) throw new Error('the proxy area needs the 1k corpus');
  const token = await env.token(corpus.user);
  const rounds = env.quick ? 200 : 1000;
  const warmup = env.quick ? 40 : 150;
  const filtered: Timed<unknown>[] = [];
  const timed = (url: string, headers: Record<string, string>, what: string, keep?: Timed<unknown>[]) => async () => {
    const response = expectStatus(await postJson(url, BODY, headers), 200, what);
    keep?.push(response);
    return response.ms;
  };
  const memgate = env.proxyUrl(env.stub.url);
  const samples = await interleaved(
    {
      direct: timed(`${env.stub.url}/chat/completions`, { authorization: 'Bearer k' }, 'direct to stub'),
      passthrough: timed(memgate, { authorization: `Bearer ${token}`, ...PASSTHROUGH }, 'memgate passthrough'),
      filtering: timed(memgate, { authorization: `Bearer ${token}`, ...FILTERING }, 'memgate filtering', filtered),
      portkey: timed(`${env.portkey.url}/v1/chat/completions`, env.portkey.headersFor(env.stub.url), 'portkey'),
    },
    { rounds, warmup },
  );
  const direct = samples.direct as number[];
  const passthrough = addedLatency(samples.passthrough as number[], direct);
  const filtering = addedLatency(samples.filtering as number[], direct);
  const portkey = addedLatency(samples.portkey as number[], direct);
  const raw = Object.fromEntries(Object.entries(samples).map(([name, list]) => [name, summarize(list)]));
  const ms = (value: number | undefined) => `${round(value ?? Number.NaN)} ms`;
  // Then the proxy as a user gets it without configuration: storing on too, in its own tenant (proxy-defaults.ts).
  const defaults = await proxyDefaults(env);
  const header = (name: string) => {
    const values = filtered.map((response) => Number(response.headers[name] ?? Number.NaN));
    return summarize(values).p50;
  };
  return {
    id: 'proxy',
    title: 'Completion proxy: added latency (non-streaming)',
    figures: [
      figure('added latency p50, passthrough (filter, context, store off)', round(passthrough.p50Difference), 'ms', {
        budget: atMost(1, '#4'),
        peer: `portkey ${ms(portkey.p50Difference)}`,
      }),
      figure('added latency p99, passthrough', round(passthrough.p99Difference), 'ms', {
        budget: atMost(3, '#4'),
        peer: `portkey ${ms(portkey.p99Difference)}`,
      }),
      figure('added latency p50, filtering and context on', round(filtering.p50Difference), 'ms', {
        budget: atMost(5, '#4'),
      }),
      figure('added latency p99, filtering and context on', round(filtering.p99Difference), 'ms'),
      ...defaults.figures,
      figure('round trip p50 direct to the stub', round(raw.direct?.p50 ?? Number.NaN), 'ms'),
    ],
    notes: [
      `${rounds} rounds after ${warmup} warm-up rounds; each round sends the same 20-message request direct, through memgate (passthrough), through memgate (filtering) and through portkey, back to back at concurrency 1 on keep-alive connections, the first position rotating.`,
      `Added latency = percentile(through) − percentile(direct) of the same run. Paired per-round differences, p50 / p99: passthrough ${ms(passthrough.paired.p50)} / ${ms(passthrough.paired.p99)}, filtering ${ms(filtering.paired.p50)} / ${ms(filtering.paired.p99)}, portkey ${ms(portkey.paired.p50)} / ${ms(portkey.paired.p99)}.`,
      `Round trips p50 / p99: direct ${ms(raw.direct?.p50)} / ${ms(raw.direct?.p99)}, passthrough ${ms(raw.passthrough?.p50)} / ${ms(raw.passthrough?.p99)}, filtering ${ms(raw.filtering?.p50)} / ${ms(raw.filtering?.p99)}, portkey ${ms(raw.portkey?.p50)} / ${ms(raw.portkey?.p99)}.`,
      `Filtering requests (caller's tenant: ${corpus.size} chunks; storing off): median ${header('x-memgate-history-kept')} messages kept, ${header('x-memgate-history-dropped')} dropped, ${header('x-memgate-context-injected')} context records injected.`,
      ...defaults.notes,
      `Upstream stub: ${env.stub.place === 'child' ? 'in its own process (BENCH_UPSTREAM=child)' : "in the bench's process"}. ${INSTRUMENT}`,
    ],
    series: { ...samples, ...defaults.series },
  };
}
