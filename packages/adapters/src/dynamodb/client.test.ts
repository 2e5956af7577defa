import { once } from 'node:events';
import { createServer } from 'node:http';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { settleUnderFakeTime, startHangingServer } from '../../../../test/support/hanging-server.ts';
import { createDocumentClient, DynamoDeadlineError } from './client.ts';

// A DynamoDB that accepts connections and reads requests but never answers: every call must still end, at its
// deadline, with a clear error (issue 12, item 15). Fake timers drive the SDK's and our deadlines; sockets are real.

let hung: Awaited<ReturnType<typeof startHangingServer>>;
beforeAll(async () => {
  hung = await startHangingServer();
});
afterAll(() => hung.close());

const get = () => new GetCommand({ TableName: 't', Key: { pk: 'a', sk: 'b' } });

describe('DynamoDB client deadlines', () => {
  it('gives up on a hanging attempt, retries, and ends the call at its total deadline', async () => {
    const client = createDocumentClient({ endpoint: hung.url, attemptTimeoutMs: 10_000, totalTimeoutMs: 25_000 });
    const before = hung.requests;
    const { error, elapsed } = await settleUnderFakeTime(() => client.send(get()), {
      startWhen: () => hung.requests > before,
    });
    expect(error).toBeInstanceOf(DynamoDeadlineError);
    expect((error as Error).message).toBe('DynamoDB Get did not complete within 25000 ms');
    // More than one attempt reached the server: a hanging attempt is given up on and retried.
    expect(hung.requests - before).toBeGreaterThan(1);
    expect(elapsed).toBeGreaterThanOrEqual(24_000);
    expect(elapsed).toBeLessThanOrEqual(26_000);
    client.destroy();
  });

  it('has deadlines by default (10 s an attempt, 25 s a call)', async () => {
    const client = createDocumentClient({ endpoint: hung.url });
    const before = hung.requests;
    const { error, elapsed } = await settleUnderFakeTime(() => client.send(get()), {
      startWhen: () => hung.requests > before,
    });
    expect(error).toBeInstanceOf(DynamoDeadlineError);
    expect(elapsed).toBeLessThanOrEqual(26_000);
    client.destroy();
  });

  it('sends no attempt after the deadline and closes the one in flight', async () => {
    const client = createDocumentClient({ endpoint: hung.url, attemptTimeoutMs: 10_000, totalTimeoutMs: 5_000 });
    const before = hung.requests;
    const { error } = await settleUnderFakeTime(() => client.send(get()), { startWhen: () => hung.requests > before });
    expect(error).toBeInstanceOf(DynamoDeadlineError);
    const sent = hung.requests;
    // The rest of what the first attempt's timeout and the SDK's retries would have taken, and more.
    await settleUnderFakeTime(() => new Promise((resolve) => setTimeout(resolve, 60_000)));
    expect(hung.requests).toBe(sent);
    while (hung.connections > 0) await new Promise((resolve) => setImmediate(resolve));
    client.destroy();
  });

  it("still ends at once on the caller's own abort, with the caller's abort error", async () => {
    const client = createDocumentClient({ endpoint: hung.url });
    const caller = new AbortController();
    const call = client.send(get(), { abortSignal: caller.signal });
    const before = hung.requests;
    while (hung.requests === before) await new Promise((resolve) => setImmediate(resolve));
    caller.abort();
    const error = await call.catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(DynamoDeadlineError);
    expect((error as Error).name).toBe('AbortError');
    client.destroy();
  });
});

// A DynamoDB that answers every GetItem with an item made of the key asked for.
async function startEchoServer() {
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      const { Key } = JSON.parse(body) as { Key: { pk: { S: string } } };
      response.setHeader('content-type', 'application/x-amz-json-1.0');
      response.end(JSON.stringify({ Item: { ...Key, seen: { N: '1' } } }));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, close: () => server.close() };
}

describe('DynamoDB client middleware', () => {
  it("resolves each command's middleware once, and each call still sends its own input", async () => {
    const echo = await startEchoServer();
    const client = createDocumentClient({ endpoint: echo.url });
    const documentResolved = vi.spyOn(GetCommand.prototype, 'resolveMiddleware');
    const lowLevelResolved = vi.spyOn(GetItemCommand.prototype, 'resolveMiddleware');
    try {
      const keys = ['a', 'b', 'c', 'd', 'e', 'f'];
      const items = await Promise.all(
        keys.map((pk) => client.send(new GetCommand({ TableName: 't', Key: { pk } })).then((out) => out.Item)),
      );
      expect(items).toEqual(keys.map((pk) => ({ pk, seen: 1 })));
      const lowLevel = await client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'g' } } }));
      expect(lowLevel.Item).toEqual({ pk: { S: 'g' }, seen: { N: '1' } });
      await client.send(new GetItemCommand({ TableName: 't', Key: { pk: { S: 'h' } } }));
      // The SDK would build the whole stack for each of the eight calls.
      expect(documentResolved).toHaveBeenCalledTimes(1);
      expect(lowLevelResolved).toHaveBeenCalledTimes(2); // the document command's own, and the low-level one's
    } finally {
      documentResolved.mockRestore();
      lowLevelResolved.mockRestore();
      client.destroy();
      echo.close();
    }
  });
});
