import { type AddResult, type ContextStore, MemgateError } from '@memgate/core';
import { createJsonLogger } from '@memgate/http';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { tokenFor } from '../support/tokens.ts';
import { startUpstreamStub } from '../support/upstream-stub.ts';
import { createFakeContextStore, startProxy } from './harness.ts';

// Captured exchanges are stored in batches after the responses (packages/http/src/proxy/store.ts): none may be lost
// to a burst, a failing store is retried, and one exchange the store refuses does not sink the others.

const stub = await startUpstreamStub({ behavior: { reply: 'Pier nine, at half past ten.' } });
const fake = createFakeContextStore();
/** What the next adds do before the fake stores them: throw to fail one. */
let beforeAdd: (input: Parameters<ContextStore['add']>[1]) => void = () => {};
const store: ContextStore = {
  ...fake.store,
  async add(principal, input): Promise<AddResult> {
    beforeAdd(input);
    return fake.store.add(principal, input);
  },
};
const lines: string[] = [];
const logger = createJsonLogger({ level: 'info', sink: (line) => lines.push(line) });
const proxy = await startProxy({ contextStore: store, logger });
afterAll(async () => {
  await proxy.close();
  await stub.close();
});
beforeEach(() => {
  fake.added.length = 0;
  lines.length = 0;
  beforeAdd = () => {};
});

const KEY = 'sk-capture-batching-key-0123';

async function ask(user: string, question: string): Promise<void> {
  const response = await fetch(`${proxy.url}/api/v1/proxy/${stub.url}/${KEY}/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${await tokenFor(user, { scope: 'proxy' })}`,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: question }] }),
  });
  expect(response.status).toBe(200);
  await response.text();
}

/** Every stored exchange's text, by the user it was stored for. */
function storedBy(user: string): string[] {
  return fake.added
    .filter((add) => add.principal.userId === user)
    .flatMap((add) => add.input.documents.map((document) => document.content));
}

const errorLines = () => lines.filter((line) => JSON.parse(line).level === 'error');

describe('captured exchanges, stored in batches', () => {
  it('stores every exchange of a burst exactly once, in a few adds per caller, each document on its own', async () => {
    const questions = (user: string) => Array.from({ length: 40 }, (_, i) => `Which pier for ferry ${i} (${user})?`);
    await Promise.all(['erin', 'femi'].flatMap((user) => questions(user).map((question) => ask(user, question))));
    await proxy.background.idle();
    for (const user of ['erin', 'femi']) {
      const stored = storedBy(user);
      expect(stored.sort()).toEqual(
        questions(user)
          .map((question) => `User: ${question}\n\nAssistant: Pier nine, at half past ten.`)
          .sort(),
      );
    }
    expect(fake.added.length).toBeLessThan(80);
    for (const { input } of fake.added) {
      expect(input).toMatchObject({ context_type: 'conversation', source: 'memgate-proxy', separateDocuments: true });
      expect(input.documents.length).toBeLessThanOrEqual(100);
    }
    expect(errorLines()).toEqual([]);
  });

  it('retries an add the store failed (indexing_failed) and stores the exchange', async () => {
    let failures = 2;
    beforeAdd = () => {
      if (failures-- > 0) throw new MemgateError('internal', 'indexing_failed', 'the vector store failed; retry');
    };
    await ask('gita', 'When does the night ferry leave?');
    await proxy.background.idle();
    expect(storedBy('gita')).toEqual([
      'User: When does the night ferry leave?\n\nAssistant: Pier nine, at half past ten.',
    ]);
    expect(errorLines()).toEqual([]);
  });

  it('logs an exchange it could not store after its retries, without the token or the target key', async () => {
    beforeAdd = () => {
      throw new Error('DynamoDB is unreachable');
    };
    await ask('hugo', 'Is the ferry running today?');
    await proxy.background.idle();
    expect(storedBy('hugo')).toEqual([]);
    const [line, ...more] = errorLines();
    expect(more).toEqual([]);
    expect(JSON.parse(line as string)).toMatchObject({
      msg: 'proxy could not store the exchange',
      error: 'DynamoDB is unreachable',
      attempts: 4,
    });
    expect(line).not.toContain(KEY);
    expect(line).not.toContain('eyJ');
  }, 20_000);

  it('stores the others when the store refuses one exchange of a batch', async () => {
    beforeAdd = (input) => {
      if (input.documents.some((document) => document.content.includes('REFUSED'))) {
        throw new MemgateError('validation', 'invalid_request', 'at most 1000000 characters', {
          field: 'documents[0].content',
        });
      }
    };
    await Promise.all([ask('ines', 'First question?'), ask('ines', 'REFUSED question?'), ask('ines', 'Last one?')]);
    await proxy.background.idle();
    expect(storedBy('ines').sort()).toEqual(
      ['First question?', 'Last one?'].map((q) => `User: ${q}\n\nAssistant: Pier nine, at half past ten.`).sort(),
    );
    expect(errorLines()).toHaveLength(1);
  });
});
