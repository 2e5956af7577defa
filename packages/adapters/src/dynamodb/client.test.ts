import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
