import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tokenFor } from '../support/tokens.ts';
import { startUpstreamStub } from '../support/upstream-stub.ts';
import { startServerChild } from './server.ts';

// `npx tsx test/load/upstream-body.ts [MB]`: the local server (as `npm start` runs it) proxying a route A target that
// answers with MB megabytes (default 300): non-streamed, streamed to a client that reads it all, and streamed to a
// client that does not read for 3 s. Prints the server's peak RSS growth for each (DESIGN.md section 4, "Size and
// time"), sampled from /proc every 10 ms.

const MB = 1024 * 1024;
const size = Number(process.argv[2] ?? 300) * MB;

function rssMbOf(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function peakGrowth(pid: number, run: () => Promise<string>): Promise<string> {
  const start = rssMbOf(pid);
  let peak = start;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssMbOf(pid));
  }, 10);
  try {
    const outcome = await run();
    return `${outcome}; server RSS ${start.toFixed(0)} MB, peak growth ${(peak - start).toFixed(0)} MB`;
  } finally {
    clearInterval(sampler);
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'memgate-upstream-body-'));
  const secret = randomBytes(32).toString('base64url');
  const stub = await startUpstreamStub();
  const server = await startServerChild({
    DATA_DIR: dataDir,
    AUTH_JWT_SECRET: secret,
    PROXY_ALLOW_PRIVATE_TARGETS: 'true',
  });
  const token = await tokenFor('big-body', { secret });
  const url = `${server.url}/api/v1/proxy/${stub.url}/sk-body-key/chat/completions`;
  const post = (stream: boolean) =>
    fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-memgate-store': 'off' },
      body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'everything' }], stream }),
    });
  try {
    // Warm-up: the first request loads the tokenizer and the handlers.
    stub.setBehavior({ reply: 'warm' });
    await (await post(false)).text();

    stub.setBehavior({ flood: { bytes: size } });
    console.log(
      'non-streamed:',
      await peakGrowth(server.pid, async () => {
        const res = await post(false);
        const text = await res.text();
        return `${res.status} ${text.slice(0, 120)}; stub wrote ${(stub.flood.written / MB).toFixed(0)} MB`;
      }),
    );

    console.log(
      'streamed, client reads:',
      await peakGrowth(server.pid, async () => {
        const res = await post(true);
        let received = 0;
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) received += chunk.byteLength;
        return `${res.status}, client received ${(received / MB).toFixed(0)} MB`;
      }),
    );

    console.log(
      'streamed, client does not read for 3 s:',
      await peakGrowth(server.pid, async () => {
        const client = httpRequest(url, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        });
        const response = new Promise<import('node:http').IncomingMessage>((resolve) =>
          client.once('response', resolve),
        );
        client.end(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true }));
        const res = await response;
        res.pause();
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        const written = stub.flood.written;
        client.destroy();
        return `${res.statusCode}, stub wrote ${(written / MB).toFixed(0)} MB of ${(size / MB).toFixed(0)} MB`;
      }),
    );
  } finally {
    await server.stop();
    await stub.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

await main();
