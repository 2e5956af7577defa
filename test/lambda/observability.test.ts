import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { BUNDLES_HOOK_TIMEOUT_MS } from '../support/bundles.ts';
import { type ApiResult, httpEvent, invokeStreaming, lambdaContext, type StreamingHandler } from '../support/lambda.ts';
import { tokenFor } from '../support/tokens.ts';
import { startUpstreamStub, type UpstreamStub } from '../support/upstream-stub.ts';
import { type LambdaHarness, startLambdaHarness } from './harness.ts';

type ApiHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<ApiResult>;

const TARGET_KEY = 'sk-observed-target-key-0123456789';

let harness: LambdaHarness;
let upstream: UpstreamStub;
let token: string;
let output: string[];

beforeAll(async () => {
  upstream = await startUpstreamStub();
  harness = await startLambdaHarness({ LOG_LEVEL: 'info', PROXY_ALLOW_PRIVATE_TARGETS: 'true' });
  token = await tokenFor('olivia');
}, BUNDLES_HOOK_TIMEOUT_MS);

afterAll(async () => {
  await harness?.close();
  await upstream?.close();
});

// Powertools writes through a Console bound to process.stdout/stderr: capture what would reach CloudWatch.
beforeEach(() => {
  output = [];
  for (const stream of [process.stdout, process.stderr]) {
    vi.spyOn(stream, 'write').mockImplementation((chunk: string | Uint8Array) => {
      output.push(String(chunk));
      return true;
    });
  }
});
afterEach(() => vi.restoreAllMocks());

/** Every JSON object written, one per line. */
const jsonLines = () =>
  output
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const emf = () => jsonLines().filter((line) => line._aws !== undefined);

describe('Lambda observability (Powertools)', () => {
  it('logs each request with the invocation id, the cold-start flag and no secret; metrics go out as EMF', async () => {
    const search = await harness.handlerOf<ApiHandler>('context-search');
    const call = (context: Context) =>
      search(
        httpEvent({
          method: 'POST',
          path: '/api/v1/context/search',
          body: { query: 'anything', similarity_threshold: 1, minimum_similarity_threshold: 0 },
          headers: { authorization: `Bearer ${token}`, 'x-request-id': 'caller-chosen-id' },
        }),
        context,
      );
    const first = lambdaContext('context-search');
    const answer = await call(first);
    expect(answer.statusCode).toBe(202);
    // The invocation's id is the request's id, in the log and in the response header.
    expect(answer.headers?.['x-request-id']).toBe(first.awsRequestId);
    const request = jsonLines().find((line) => line.message === 'request');
    expect(request).toMatchObject({
      level: 'INFO',
      requestId: first.awsRequestId,
      function_request_id: first.awsRequestId,
      cold_start: true,
      route: '/api/v1/context/search',
      status: 202,
    });
    const metrics = emf().find((line) => line.requests === 1);
    expect(metrics?._aws).toMatchObject({ CloudWatchMetrics: [{ Namespace: 'memgate' }] });
    expect(metrics).toMatchObject({ statusClass: '2xx' });
    expect(emf().find((line) => line.ColdStart === 1)).toBeDefined();

    output = [];
    const second = lambdaContext('context-search');
    await call(second);
    expect(jsonLines().find((line) => line.message === 'request')).toMatchObject({
      function_request_id: second.awsRequestId,
      cold_start: false,
    });
    expect(emf().find((line) => line.ColdStart !== undefined)).toBeUndefined();
    expect(output.join('')).not.toContain(token);
  });

  it('records the proxy figures (upstream latency, tokens saved, messages dropped, context injected)', async () => {
    upstream.setBehavior({ reply: 'an answer' });
    const proxy = await harness.handlerOf<StreamingHandler>('proxy');
    const base = encodeURIComponent(upstream.url);
    const history = Array.from({ length: 12 }, (_, i) => ({
      role: i % 2 === 0 ? 'user' : 'assistant',
      content: `unrelated chatter about gardening number ${i} with tomatoes and compost`,
    }));
    const response = await invokeStreaming(
      proxy,
      httpEvent({
        method: 'POST',
        path: `/api/v1/proxy/${base}/${TARGET_KEY}/chat/completions`,
        body: {
          model: 'gpt-test',
          messages: [...history, { role: 'user', content: 'what is the capital of Peru?' }],
        },
        headers: { authorization: `Bearer ${token}` },
        functionUrl: true,
      }),
      lambdaContext('proxy'),
    );
    expect(response.statusCode).toBe(200);
    expect(response.headers['server-timing']).toMatch(/^upstream;dur=\d+(\.\d)?$/);
    const dropped = Number(response.headers['x-memgate-history-dropped']);
    expect(dropped).toBeGreaterThan(0);
    const metrics = emf().find((line) => line.requests === 1);
    expect(metrics).toMatchObject({
      messagesDropped: dropped,
      tokensSaved: Number(response.headers['x-memgate-tokens-saved']),
      contextInjected: 0,
    });
    expect(metrics?.upstreamLatency).toBeGreaterThanOrEqual(0);
    const declared = metrics?._aws as { CloudWatchMetrics: { Metrics: { Name: string }[] }[] } | undefined;
    const names = declared?.CloudWatchMetrics[0]?.Metrics.map((metric) => metric.Name);
    expect(names).toEqual(
      expect.arrayContaining(['requests', 'upstreamLatency', 'tokensSaved', 'messagesDropped', 'contextInjected']),
    );
    const written = output.join('');
    expect(written).not.toContain(TARGET_KEY);
    expect(written).not.toContain(token);
  });
});
