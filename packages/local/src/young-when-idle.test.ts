import { once } from 'node:events';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { collectYoungIfFull, collectYoungWhenIdle, youngFullness } from './young-when-idle.ts';

/** A server that holds every request until the test answers it. */
async function holdingServer() {
  const held: ServerResponse[] = [];
  const server: Server = createServer((_request, response) => held.push(response));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  /** Resolves once `count` requests have reached the server. */
  const arrived = async (count: number) => {
    while (held.length < count) await once(server, 'request');
  };
  return { server, held, url, arrived };
}

/** Waits until `response` has closed and the server's turn after it (where a collection would run) is over. */
async function closedAndSettled(response: ServerResponse): Promise<void> {
  if (!response.closed) await once(response, 'close');
  await new Promise((resolve) => setImmediate(resolve));
}

let stopServer: (() => void) | undefined;
afterEach(() => stopServer?.());

describe('collectYoungWhenIdle', () => {
  it('collects when the last request in flight has ended, not while another is still being answered', async () => {
    const { server, held, url, arrived } = await holdingServer();
    const collect = vi.fn();
    const stop = collectYoungWhenIdle(server, { read: () => 0.6, collect });
    stopServer = () => {
      stop();
      server.closeAllConnections();
      server.close();
    };
    const first = fetch(url).then((response) => response.text());
    const second = fetch(url).then((response) => response.text());
    await arrived(2);
    (held[0] as ServerResponse).end('one');
    expect(await first).toBe('one');
    await closedAndSettled(held[0] as ServerResponse);
    expect(collect).not.toHaveBeenCalled();
    (held[1] as ServerResponse).end('two');
    expect(await second).toBe('two');
    await closedAndSettled(held[1] as ServerResponse);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('leaves a young generation under half full alone', async () => {
    const { server, held, url, arrived } = await holdingServer();
    const collect = vi.fn();
    const stop = collectYoungWhenIdle(server, { read: () => 0.4, collect });
    stopServer = () => {
      stop();
      server.close();
    };
    const answer = fetch(url).then((response) => response.text());
    await arrived(1);
    (held[0] as ServerResponse).end('ok');
    await answer;
    await closedAndSettled(held[0] as ServerResponse);
    expect(collect).not.toHaveBeenCalled();
  });

  it('counts a request whose client went away as ended', async () => {
    const { server, held, url, arrived } = await holdingServer();
    const collect = vi.fn();
    const stop = collectYoungWhenIdle(server, { read: () => 0.9, collect });
    stopServer = () => {
      stop();
      server.close();
    };
    const client = new AbortController();
    const answer = fetch(url, { signal: client.signal }).catch((error: Error) => error.name);
    await arrived(1);
    client.abort();
    expect(await answer).toBe('AbortError');
    await closedAndSettled(held[0] as ServerResponse);
    expect(collect).toHaveBeenCalledTimes(1);
  });

  it('reads the young generation of this process', () => {
    const fullness = youngFullness();
    expect(fullness).toBeGreaterThan(0);
    expect(fullness).toBeLessThanOrEqual(1);
  });
});

describe('collectYoungIfFull', () => {
  it('collects at 40% full or more by default, not under', () => {
    const collect = vi.fn();
    collectYoungIfFull(undefined, { read: () => 0.39, collect });
    expect(collect).not.toHaveBeenCalled();
    collectYoungIfFull(undefined, { read: () => 0.4, collect });
    expect(collect).toHaveBeenCalledTimes(1);
  });
});
