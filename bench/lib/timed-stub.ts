import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TimedStreamStub {
  /** Base URL, e.g. http://127.0.0.1:PORT/v1. */
  url: string;
  close(): Promise<void>;
}

/**
 * An OpenAI-compatible streaming upstream whose every content chunk carries the moment it was written
 * (`performance.now()` of this process, as the chunk's `content`). It runs in the benchmark's own process, so the
 * client compares arrival with send time on one clock: the delay of each chunk through a proxy, not just gaps.
 */
export async function startTimedStreamStub({
  chunks = 10,
  intervalMs = 20,
}: {
  chunks?: number;
  intervalMs?: number;
} = {}): Promise<TimedStreamStub> {
  const line = (delta: Record<string, unknown>, finish: string | null) =>
    `data: ${JSON.stringify({
      id: 'chatcmpl-timed',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'timed-stub',
      choices: [{ index: 0, delta, finish_reason: finish }],
    })}\n\n`;

  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write(line({ role: 'assistant', content: `${performance.now()}` }, null));
      let sent = 1;
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        if (sent < chunks) {
          res.write(line({ content: `${performance.now()}` }, null));
          sent += 1;
          return;
        }
        clearInterval(timer);
        res.end(`${line({}, 'stop')}data: [DONE]\n\n`);
      }, intervalMs);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
