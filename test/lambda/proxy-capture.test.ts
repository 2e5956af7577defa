import type { ContextRepository } from '@memgate/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpEvent, invokeStreaming, type StreamingHandler } from '../support/lambda.ts';
import { tokenFor } from '../support/tokens.ts';
import { contextRepositoryFor, type LambdaHarness, startLambdaHarness } from './harness.ts';

// Issue 12 item 8: Lambda freezes an instance once its handler's promise settles, so the proxy's capture of the
// exchange (work after the response) must be finished by then. Checked the moment the handler resolves, with no
// waiting: the exchange is stored and visible.

let harness: LambdaHarness;
let proxy: StreamingHandler;
let repository: ContextRepository;

beforeAll(async () => {
  harness = await startLambdaHarness();
  proxy = await harness.handlerOf<StreamingHandler>('proxy');
  repository = contextRepositoryFor(harness.table);
}, 300_000);

afterAll(() => harness?.close());

async function conversationsOf(user: string) {
  const page = await repository.listByOwner(user, { limit: 100, documentsOnly: true });
  return page.items.filter((record) => record.context_type === 'conversation');
}

describe('proxy Lambda: the captured exchange', () => {
  for (const stream of [false, true]) {
    it(`is stored when the handler resolves (${stream ? 'streamed' : 'JSON'} answer)`, async () => {
      const user = `capture-${stream ? 'sse' : 'json'}`;
      const token = await tokenFor(user);
      const question = `Which pier does the night ferry use? (${user})`;
      const response = await invokeStreaming(
        proxy,
        httpEvent({
          method: 'POST',
          path: '/api/v1/proxy/default/chat/completions',
          body: { model: 'memgate/default', stream, messages: [{ role: 'user', content: question }] },
          headers: { authorization: `Bearer ${token}` },
          functionUrl: true,
        }),
      );
      expect(response.statusCode).toBe(200);
      const stored = await conversationsOf(user);
      expect(stored).toHaveLength(1);
      expect(stored[0]?.status).toBe('indexed');
      const chunks = await repository.getMany(stored[0]?.children_context_nodes ?? []);
      expect(chunks.map((chunk) => chunk.text).join('')).toContain(question);
    });
  }
});
