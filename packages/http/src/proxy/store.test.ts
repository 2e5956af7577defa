import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { ContextStore, Principal } from '@memgate/core';
import { describe, expect, it } from 'vitest';
import { createJsonLogger } from '../observability/logger.ts';
import { createBackgroundWork, type ProxyAreaDeps } from './deps.ts';
import { createExchangeStore } from './store.ts';

// Node's collector, for checking what a held capture keeps alive (the flag only makes `gc` available).
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

const principal: Principal = { userId: 'u-held', orgs: [], scopes: new Set(['proxy']) };

/** An exchange store whose adds land in `added`; its batches start when `background.idle()` is awaited. */
function heldStore() {
  const added: string[] = [];
  const add: ContextStore['add'] = async (_principal, input) => {
    for (const document of input.documents) added.push(document.content);
    return { documents: [] } as unknown as Awaited<ReturnType<ContextStore['add']>>;
  };
  const contextStore = { add } as unknown as ContextStore;
  const background = createBackgroundWork((error) => {
    throw error;
  });
  const deps = { contextStore, background } as Partial<ProxyAreaDeps> as ProxyAreaDeps;
  // A batch starts only when released (an hour of quiet otherwise): the capture stays held while we look.
  const timing = {
    quietMs: 3_600_000,
    maxDelayMs: 3_600_000,
    maxItems: 100,
    maxBatchSize: 1 << 30,
    maxHeldSize: 1 << 30,
  };
  const exchanges = createExchangeStore(deps, createJsonLogger({ level: 'error', sink: () => {} }), { timing });
  return { added, background, exchanges };
}

describe('a capture waiting for its batch', () => {
  it('keeps the question and the reply, not the request it came from', async () => {
    const { added, background, exchanges } = heldStore();
    let messages: { role: string; content: string }[] | undefined = Array.from({ length: 10_000 }, (_, i) => ({
      role: 'tool',
      content: `result ${i}`,
    }));
    const requestGone = new WeakRef(messages);
    // What the proxy passes: the prepared request, with its (possibly huge) messages.
    exchanges.capture(principal, { question: 'where is the boat?', sources: [], messages } as never, 'Pier nine.');
    messages = undefined;
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();

    expect(requestGone.deref()).toBeUndefined();
    await background.idle();
    expect(added).toEqual(['User: where is the boat?\n\nAssistant: Pier nine.']);
  });
});

describe('a captured exchange cut to fit a document', () => {
  it('cuts a question over 1,000,000 characters between characters, never inside an emoji', async () => {
    const { added, background, exchanges } = heldStore();
    // 1,000,000 less the reply and the labels leaves room for 999,971 units: the last is half of an emoji.
    const question = `ab${'😀'.repeat(500_000)}`;
    exchanges.capture(principal, { question, sources: [] } as never, 'Pier nine.');
    await background.idle();
    expect(added).toEqual([`User: ab${'😀'.repeat(499_984)}\n\nAssistant: Pier nine.`]);
  });
});
