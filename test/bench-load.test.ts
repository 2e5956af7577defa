import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runLoad } from '../bench/lib/load.ts';

// The add area's figure is items per second over HTTP against raw BatchWrite, so the HTTP side's seconds must be the
// run's own: autocannon's result.duration is taken at its next once-a-second tick, a whole number of seconds for a
// run of a fixed number of requests.

let server: Server;
let url = '';

beforeAll(async () => {
  server = createServer((request, response) => {
    request.resume();
    request.on('end', () => setTimeout(() => response.writeHead(201).end('{}'), 20));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/add`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

describe('runLoad', () => {
  it('times a fixed number of requests to its last response, not to the next whole second', async () => {
    const run = await runLoad({ url, headers: {}, bodies: ['{}'], connections: 1, amount: 5, what: 'test' }, 201);
    expect(run.latencies).toHaveLength(5);
    expect(run.result.duration).toBeGreaterThanOrEqual(1); // autocannon's own figure: its first tick
    expect(run.seconds).toBeGreaterThanOrEqual(0.1); // five answers 20 ms apart at the least
    expect(run.seconds).toBeLessThan(0.9);
    expect(run.requestsPerSecond).toBeCloseTo(5 / run.seconds, 6);
  });
});
