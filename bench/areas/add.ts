import { addBody } from '../lib/corpus.ts';
import { type BenchEnv, TABLE_NAME } from '../lib/env.ts';
import { runLoad } from '../lib/load.ts';
import { itemsOf, rawBatchWriteRate } from '../lib/raw-writes.ts';
import { type AreaResult, atLeast, figure } from '../lib/results.ts';
import { round } from '../lib/stats.ts';

const DOCUMENTS_PER_ADD = 10;
const CHUNKS_PER_DOCUMENT = 10;
const HTTP_CONNECTIONS = 4;
const RAW_WRITERS = 8;
/** Seeds of the add area's documents: far from the corpora's, so nothing here re-adds a seeded document. */
const FIRST_SEED = 10_000_000;

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

/**
 * Add throughput (issue 3) against DynamoDB Local's ceiling, in the same run on the same DynamoDB Local and table:
 * each round adds fresh documents over HTTP (autocannon, 4 connections, 10 documents of 10 chunks per request) and
 * writes the very items those adds write (built by the store's own record code, another owner) with raw BatchWrite
 * from 8 writers. Rounds alternate which goes first; the figure is the ratio of the medians, in items per second.
 */
export async function addArea(env: BenchEnv): Promise<AreaResult> {
  const rounds = env.quick ? 1 : 3;
  const addsPerRound = env.quick ? 15 : 40;
  const headers = { authorization: `Bearer ${await env.token('bench-add')}` };
  const http: number[] = [];
  const caughtUp: number[] = [];
  const raw: number[] = [];
  let items = 0;
  for (let round = 0; round < rounds; round++) {
    const bodies = Array.from({ length: addsPerRound }, (_, i) =>
      addBody({
        firstSeed: FIRST_SEED + (round * addsPerRound + i) * DOCUMENTS_PER_ADD,
        documents: DOCUMENTS_PER_ADD,
        chunksPerDocument: CHUNKS_PER_DOCUMENT,
      }),
    );
    const roundItems = itemsOf(
      bodies.flatMap((body) => body.documents),
      `raw-writer-${round}`,
    );
    items = roundItems.length;
    const viaHttp = async () => {
      const run = await env.rss.during(`add load, ${HTTP_CONNECTIONS} connections (round ${round + 1})`, () =>
        runLoad(
          {
            url: `${env.server.url}/api/v1/context/add`,
            headers,
            bodies: bodies.map((body) => JSON.stringify(body)),
            connections: HTTP_CONNECTIONS,
            amount: bodies.length,
            what: 'context add',
          },
          201,
        ),
      );
      http.push(roundItems.length / run.seconds);
      // Work the adds left for later (vectors waiting for the graph): done before anything else is measured, and
      // counted in the second rate, so deferring work cannot pass for saving it.
      const started = performance.now();
      await env.server.settled();
      caughtUp.push(roundItems.length / (run.seconds + (performance.now() - started) / 1000));
    };
    const viaRaw = async () => {
      const run = await rawBatchWriteRate({
        client: env.documentClient,
        tableName: TABLE_NAME,
        items: roundItems,
        writers: RAW_WRITERS,
      });
      raw.push(run.itemsPerSecond);
    };
    for (const step of round % 2 === 0 ? [viaRaw, viaHttp] : [viaHttp, viaRaw]) await step();
  }
  const httpRate = median(http);
  const caughtUpRate = median(caughtUp);
  const rawRate = median(raw);
  const list = (values: number[]) => values.map((value) => Math.round(value)).join(', ');
  return {
    id: 'add',
    title: 'Context store: add throughput',
    figures: [
      figure('add over HTTP / raw BatchWrite of the same items', round(httpRate / rawRate), 'ratio', {
        budget: atLeast(0.8, '#3'),
      }),
      figure('add over HTTP', Math.round(httpRate), 'items/s', {
        note: `${Math.round((httpRate * CHUNKS_PER_DOCUMENT) / (CHUNKS_PER_DOCUMENT + 1))} chunks/s`,
      }),
      figure('add over HTTP until the graph caught up / raw BatchWrite', round(caughtUpRate / rawRate), 'ratio', {
        note: 'the time after the last response until the vectors waiting for the graph were in it, counted in',
      }),
      figure('raw BatchWrite, DynamoDB Local', Math.round(rawRate), 'items/s', { peer: 'the ceiling' }),
    ],
    notes: [
      `${rounds} round(s) of ${addsPerRound} adds × ${DOCUMENTS_PER_ADD} documents × ${CHUNKS_PER_DOCUMENT} chunks (${items} DynamoDB items: a document row and its chunk rows, ~1 KB of text each); medians of the rounds. Per round, items/s: HTTP ${list(http)}; HTTP until the graph caught up ${list(caughtUp)}; raw ${list(raw)}.`,
      `An add over HTTP does everything the product does: validation, chunking, embedding, rows, vectors into the embedded index, and the pending → indexed transition; raw BatchWrite only puts the rows (25 per request, ${RAW_WRITERS} writers). Both write into the same table, already holding the seeded corpora.`,
    ],
    series: { httpItemsPerSecond: http, httpCaughtUpItemsPerSecond: caughtUp, rawItemsPerSecond: raw },
  };
}
