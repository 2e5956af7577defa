import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@memgate/adapters';
import { silentLogger } from '@memgate/http';
import { startLocalServer } from '@memgate/local/server';
import { signLocalToken } from '@memgate/local/token';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { unspacedWord } from './load/abuse.ts';
import { measureLoopHold } from './support/event-loop.ts';

// Core builds the tokenizer's encoder on first use (a process that never counts never pays ~50 MB for it), so the
// local server builds it before it listens: inside the first request that counts tokens it would hold the event
// loop for ~0.2 s (or more) of CPU, and every request in flight would wait (DESIGN.md §4 "Size and time": 100 ms).
const SECRET = 'memgate-tokenizer-preload-secret-0123456789';
let dataDir: string;
let server: Awaited<ReturnType<typeof startLocalServer>>;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'memgate-tokenizer-'));
  const config = loadConfig({
    DATA_DIR: dataDir,
    DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
    TABLE_NAME: `tokenizer-${randomUUID().slice(0, 8)}`,
    PORT: '0',
    AUTH_JWT_SECRET: SECRET,
  });
  server = await startLocalServer(config, silentLogger);
});

afterAll(async () => {
  await server?.stop();
  rmSync(dataDir, { recursive: true, force: true });
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
