import type { RunningServer } from '@memgate/local/server';
import { signLocalToken } from '@memgate/local/token';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { unspacedWord } from './load/abuse.ts';
import { measureLoopHold } from './support/event-loop.ts';
import { startTestLocalServer } from './support/local-server.ts';

// Core builds the tokenizer's encoder on first use (a process that never counts never pays ~50 MB for it), so the
// local server builds it before it listens: inside the first request that counts tokens it would hold the event
// loop for ~0.2 s (or more) of CPU, and every request in flight would wait (DESIGN.md §4 "Size and time": 100 ms).
const SECRET = 'memgate-tokenizer-preload-secret-0123456789';
let server: RunningServer;

beforeAll(async () => {
  server = await startTestLocalServer('tokenizer', { AUTH_JWT_SECRET: SECRET });
});

afterAll(async () => {
  await server?.stop();
});

it("the local server's first request that counts tokens does not build the encoder inside it", async () => {
  const token = await signLocalToken(SECRET, { user: 'ulla' });
  const { result, hold } = await measureLoopHold(async () => {
    const response = await fetch(`${server.url}/api/v1/proxy/default/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-memgate-store': 'off' },
      body: JSON.stringify({ model: 'memgate/default', messages: [{ role: 'user', content: unspacedWord(120_000) }] }),
    });
    return { status: response.status, body: (await response.json()) as { usage: { prompt_tokens: number } } };
  });
  expect(result.status).toBe(200);
  // Counted exactly: the encoder was used.
  expect(result.body.usage.prompt_tokens).toBeGreaterThan(30_000);
  expect(hold.cpuMs, `held the loop for ${hold.cpuMs} ms of CPU`).toBeLessThan(100);
});
