import { queryText } from '../lib/corpus.ts';
import type { BenchEnv } from '../lib/env.ts';
import { interleaved } from '../lib/interleave.ts';
import { type AreaResult, atMost, figure } from '../lib/results.ts';
import { readEventStream } from '../lib/sse.ts';
import { round, summarize } from '../lib/stats.ts';

const typeOf = (event: unknown) => (event as { type?: string } | null)?.type;

/**
 * Chat stream (issue 5): time from sending a question to the first `thinking_update` event, read with an SSE parser
 * at concurrency 1, on the embedded extractive responder (no model configured), in a tenant holding 1,000 chunks.
 * Each request starts a new session (no chatId), as a user's first question does.
 */
export async function chatArea(env: BenchEnv): Promise<AreaResult> {
  const corpus = env.corpora.find((candidate) => candidate.size === 1000);
  if (!corpus) throw new Error('the chat area needs the 1k corpus');
  const headers = { authorization: `Bearer ${await env.token(corpus.user)}` };
  const url = `${env.server.url}/api/v1/chat/generate/stream`;
  const rounds = env.quick ? 60 : 200;
  const warmup = env.quick ? 10 : 20;
  const toFinal: number[] = [];
  const toEnd: number[] = [];
  let asked = 0;
  const samples = await interleaved(
    {
      thinking: async () => {
        const question = `What does the ${queryText(asked++)} report say?`;
        const timing = await readEventStream(url, { chat_history: [{ role: 'user', content: question }] }, headers);
        const types = timing.events.map(typeOf);
        const first = types.indexOf('thinking_update');
        const final = types.indexOf('final_response');
        if (timing.status !== 200 || first !== 0 || final < 0 || types.at(-1) !== 'metadata') {
          throw new Error(`chat stream: status ${timing.status}, events ${types.join(', ')}`);
        }
        toFinal.push((timing.arrivals[final] as number) - timing.started);
        toEnd.push((timing.arrivals.at(-1) as number) - timing.started);
        return (timing.arrivals[first] as number) - timing.started;
      },
    },
    { rounds, warmup },
  );
  const thinking = summarize(samples.thinking ?? []);
  const final = summarize(toFinal.slice(warmup));
  const end = summarize(toEnd.slice(warmup));
  return {
    id: 'chat',
    title: 'Streaming chat: time to first thinking_update',
    figures: [
      figure('time to first thinking_update p50', round(thinking.p50), 'ms', { budget: atMost(20, '#5') }),
      figure('time to first thinking_update p99', round(thinking.p99), 'ms'),
      figure('time to final_response p50', round(final.p50), 'ms'),
      figure('time to the whole answer (metadata event) p50', round(end.p50), 'ms'),
    ],
    notes: [
      `${rounds} questions after ${warmup} warm-up ones, concurrency 1, each a new session; answers from the embedded extractive responder over the caller's ${corpus.size}-chunk tenant. Times from sending the request to each event's arrival (eventsource-parser).`,
    ],
    series: { thinking: samples.thinking ?? [] },
  };
}
