import type { BenchEnv } from '../lib/env.ts';
import { interleaved } from '../lib/interleave.ts';
import { type AreaResult, atMost, figure } from '../lib/results.ts';
import { readEventStream } from '../lib/sse.ts';
import { round, summarize } from '../lib/stats.ts';
import { PASSTHROUGH } from './proxy.ts';

const BODY = {
  model: 'gpt-4o-mini',
  stream: true,
  messages: [{ role: 'user', content: 'Stream the status of the quarterly invoice.' }],
};

interface StreamSample {
  ttfc: number;
  /** Per content chunk: arrival − the stub's send time (one clock: the stub runs in this process). */
  delays: number[];
  /** Gaps between consecutive content chunks' arrivals (the stub writes them a fixed interval apart). */
  gaps: number[];
}

/** The send time the timed stub wrote into a chunk's content. */
function sentAt(event: unknown): number | undefined {
  const content = (event as { choices?: { delta?: { content?: string } }[] })?.choices?.[0]?.delta?.content;
  const value = content === undefined ? Number.NaN : Number(content);
  return Number.isFinite(value) ? value : undefined;
}

async function sampleStream(
  url: string,
  headers: Record<string, string>,
  what: string,
  chunks: number,
): Promise<StreamSample> {
  const timing = await readEventStream(url, BODY, headers);
  if (timing.status !== 200) throw new Error(`${what}: status ${timing.status}`);
  const delays: number[] = [];
  const arrivals: number[] = [];
  timing.events.forEach((event, i) => {
    const sent = sentAt(event);
    if (sent === undefined) return;
    arrivals.push(timing.arrivals[i] as number);
    delays.push((timing.arrivals[i] as number) - sent);
  });
  // Every chunk the stub wrote must arrive as its own event: a lost or merged chunk is a failure, not a figure.
  if (delays.length !== chunks) throw new Error(`${what}: ${delays.length} of ${chunks} chunks arrived`);
  const gaps = arrivals.slice(1).map((arrival, i) => arrival - (arrivals[i] as number));
  return { ttfc: (timing.arrivals[0] as number) - timing.started, delays, gaps };
}

/**
 * Proxy streaming (issue 4): the timed stub streams chunks a few ms apart; memgate (passthrough) and portkey are
 * interleaved with direct reads. Time to first chunk is measured from the request; each chunk's forwarding delay
 * is its arrival time minus its send time, through the proxy minus direct.
 */
export async function proxyStreaming(env: BenchEnv): Promise<AreaResult> {
  const token = await env.token('bench-proxy');
  const rounds = env.quick ? 30 : 120;
  const warmup = env.quick ? 10 : 20;
  const collected: Record<string, StreamSample[]> = { direct: [], memgate: [], portkey: [] };
  const sampler = (name: string, url: string, headers: Record<string, string>) => async () => {
    const sample = await sampleStream(url, headers, name, env.timedStubChunks);
    collected[name]?.push(sample);
    return sample.ttfc;
  };
  const ttfc = await interleaved(
    {
      direct: sampler('direct', `${env.timedStub.url}/chat/completions`, { authorization: 'Bearer k' }),
      memgate: sampler('memgate', env.proxyUrl(env.timedStub.url), {
        authorization: `Bearer ${token}`,
        ...PASSTHROUGH,
      }),
      portkey: sampler('portkey', `${env.portkey.url}/v1/chat/completions`, env.portkey.headersFor(env.timedStub.url)),
    },
    { rounds, warmup },
  );
  // `collected` holds the warm-up too; keep the measured rounds only.
  const measured = (name: string, part: 'delays' | 'gaps') =>
    (collected[name] ?? []).slice(warmup).flatMap((sample) => sample[part]);
  const path = (name: string) => ({
    ttfc: summarize(ttfc[name] ?? []),
    delay: summarize(measured(name, 'delays')),
    gap: summarize(measured(name, 'gaps')),
  });
  const direct = path('direct');
  const memgate = path('memgate');
  const portkey = path('portkey');
  const ms = (value: number) => `${round(value)} ms`;
  return {
    id: 'proxy-stream',
    title: 'Completion proxy: streaming (passthrough)',
    figures: [
      figure('added time to first chunk p50', round(memgate.ttfc.p50 - direct.ttfc.p50), 'ms', {
        budget: atMost(2, '#4'),
        peer: `portkey ${ms(portkey.ttfc.p50 - direct.ttfc.p50)}`,
      }),
      figure('added per-chunk forwarding delay p50', round(memgate.delay.p50 - direct.delay.p50), 'ms', {
        budget: atMost(1, '#4'),
        peer: `portkey ${ms(portkey.delay.p50 - direct.delay.p50)}`,
      }),
      figure('added per-chunk forwarding delay p99', round(memgate.delay.p99 - direct.delay.p99), 'ms', {
        peer: `portkey ${ms(portkey.delay.p99 - direct.delay.p99)}`,
      }),
      figure(`inter-chunk gap p50 (written ${env.timedStubIntervalMs} ms apart)`, round(memgate.gap.p50), 'ms', {
        peer: `portkey ${ms(portkey.gap.p50)}; direct ${ms(direct.gap.p50)}`,
      }),
      figure('inter-chunk gap p99', round(memgate.gap.p99), 'ms', {
        peer: `portkey ${ms(portkey.gap.p99)}; direct ${ms(direct.gap.p99)}`,
      }),
    ],
    notes: [
      `${rounds} streams per path after ${warmup} warm-up rounds, interleaved direct / memgate / portkey; each stream has ${env.timedStubChunks} chunks written ${env.timedStubIntervalMs} ms apart by a stub in the benchmark's process.`,
      `Per-chunk delay = arrival − send time of the same chunk (${memgate.delay.n} chunks through memgate, every one checked to arrive as its own event). Direct: p50 ${ms(direct.delay.p50)}, p99 ${ms(direct.delay.p99)}; memgate: p50 ${ms(memgate.delay.p50)}, p99 ${ms(memgate.delay.p99)}; portkey: p50 ${ms(portkey.delay.p50)}, p99 ${ms(portkey.delay.p99)}.`,
      `Time to first chunk p50: direct ${ms(direct.ttfc.p50)}, memgate ${ms(memgate.ttfc.p50)}, portkey ${ms(portkey.ttfc.p50)}.`,
    ],
    series: { ttfcDirect: ttfc.direct ?? [], ttfcMemgate: ttfc.memgate ?? [], ttfcPortkey: ttfc.portkey ?? [] },
  };
}
