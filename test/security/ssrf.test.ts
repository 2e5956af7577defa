import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import type { LookupAll } from '@memgate/adapters/ssrf/index';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startUpstreamStub, type UpstreamStub } from '../support/upstream-stub.ts';
import { startSecurityHarness, tokenFor } from './harness.ts';

// SSRF through the proxy's route A, end to end (issue 8). packages/adapters/src/ssrf/index.test.ts checks the guard's
// URL table in isolation; here each target goes through the HTTP route, and a listening socket on every loopback
// address counts accepted connections, so "refused before any connection" is observed, not assumed. Names resolve
// through an injected DNS that maps public-looking names to private addresses.

const KEY = 'plain-target-key-for-ssrf-1';
let trap: Server;
let port: number;
let accepted = 0;
const sockets = new Set<Socket>();
const resolved: string[] = [];
const DNS: Record<string, string[]> = {
  'localhost.example.com': ['127.0.0.1'],
  'rebind.example.com': ['127.0.0.1'],
  'mixed.example.com': ['93.184.216.34', '10.0.0.5'],
  'six.example.com': ['::1'],
  'mapped.example.com': ['::ffff:127.0.0.1'],
  'metadata.example.com': ['169.254.169.254'],
  'internal.example.com': ['192.168.10.10'],
  'ula.example.com': ['fd00::1234'],
};
const lookup: LookupAll = (hostname, callback) => {
  resolved.push(hostname);
  const addresses = DNS[hostname];
  if (!addresses) return callback(new Error(`ENOTFOUND ${hostname}`), []);
  callback(
    null,
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
  );
};
let strict: Awaited<ReturnType<typeof startSecurityHarness>>;
let allowList: Awaited<ReturnType<typeof startSecurityHarness>>;
let stub: UpstreamStub;
let token: string;

beforeAll(async () => {
  // Dual-stack: catches 127.0.0.1, ::1 and ::ffff:127.0.0.1 alike.
  trap = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.destroy();
  });
  trap.listen(0, '::');
  await once(trap, 'listening');
  port = (trap.address() as { port: number }).port;
  stub = await startUpstreamStub();
  strict = await startSecurityHarness({ env: { PROXY_ALLOW_PRIVATE_TARGETS: 'false' }, lookup });
  allowList = await startSecurityHarness({
    env: { PROXY_ALLOW_PRIVATE_TARGETS: 'true', PROXY_ALLOWED_HOSTS: '127.0.0.1' },
    table: strict.table,
  });
  token = await tokenFor('mallory', { scope: 'proxy' });
});
afterAll(async () => {
  await stub.close();
  trap.close();
});

const messages = [{ role: 'user', content: 'hi' }];
async function viaProxy(harness: typeof strict, base: string) {
  return harness.request('POST', `/api/v1/proxy/${base}/${KEY}/chat/completions`, {
    token,
    body: { model: 'm', messages },
  });
}

const targets = (p: number) => [
  // loopback in every notation
  `https://127.0.0.1:${p}/v1`,
  `https://127.1:${p}/v1`,
  `https://127.0.0.2:${p}/v1`,
  `https://2130706433:${p}/v1`,
  `https://0x7f000001:${p}/v1`,
  `https://0x7f.1:${p}/v1`,
  `https://0177.0.0.1:${p}/v1`,
  `https://017700000001:${p}/v1`,
  `https://127.0.0.1.:${p}/v1`,
  `https://0.0.0.0:${p}/v1`,
  `https://0:${p}/v1`,
  `https://[::1]:${p}/v1`,
  `https://[::]:${p}/v1`,
  `https://[::ffff:127.0.0.1]:${p}/v1`,
  `https://[::ffff:7f00:1]:${p}/v1`,
  `https://[0:0:0:0:0:ffff:7f00:1]:${p}/v1`,
  `https://[::127.0.0.1]:${p}/v1`,
  `https://[64:ff9b::7f00:1]:${p}/v1`,
  `https://[2002:7f00:1::]:${p}/v1`,
  // private, link-local, metadata, shared and reserved ranges
  `https://10.0.0.1:${p}/v1`,
  `https://172.16.0.1:${p}/v1`,
  `https://192.168.0.1:${p}/v1`,
  `https://169.254.169.254:${p}/latest/meta-data`,
  `https://0xa9fea9fe:${p}/v1`,
  `https://[::ffff:169.254.169.254]:${p}/v1`,
  `https://[fe80::1]:${p}/v1`,
  `https://[fc00::1]:${p}/v1`,
  `https://[fd12:3456::1]:${p}/v1`,
  `https://100.64.0.1:${p}/v1`,
  `https://224.0.0.1:${p}/v1`,
  `https://255.255.255.255:${p}/v1`,
  `https://198.18.0.1:${p}/v1`,
  // public-looking names resolving to private addresses (checked after DNS, on the address connected to)
  ...Object.keys(DNS).map((name) => `https://${name}:${p}/v1`),
  // wrong schemes, credentials, other spellings of the path
  `http://127.0.0.1:${p}/v1`,
  `http://api.example.com:${p}/v1`,
  `ftp://127.0.0.1:${p}/v1`,
  `gopher://127.0.0.1:${p}/v1`,
  `https://user:pass@127.0.0.1:${p}/v1`,
  `https:/127.0.0.1:${p}/v1`,
  encodeURIComponent(`https://127.0.0.1:${p}/v1`),
  encodeURIComponent(`https://rebind.example.com:${p}/v1`),
];

describe('SSRF: proxy targets refused before any connection', () => {
  it('refuses every loopback, private, link-local, metadata and reserved target with 400 invalid_target', async () => {
    const list = targets(port);
    expect(list.length).toBeGreaterThanOrEqual(30);
    for (const base of list) {
      const res = await viaProxy(strict, base);
      expect(res.status, `${base}: ${res.text}`).toBe(400);
      expect(JSON.parse(res.text).error, base).toMatchObject({ type: 'invalid_request_error', code: 'invalid_target' });
      expect(res.text).not.toContain(KEY);
    }
    // Every name went through DNS, and none was connected to: the trap never accepted a connection.
    expect(resolved).toEqual(expect.arrayContaining(Object.keys(DNS)));
    expect(accepted).toBe(0);
    console.info(`ssrf: ${list.length} targets refused, ${accepted} connections accepted by the trap`);
  });

  it('the trap does count connections (the check above could fail)', async () => {
    const before = accepted;
    const open = await viaProxy(allowList, `http://127.0.0.1:${port}/v1`);
    expect(open.status).toBe(502);
    expect(accepted).toBeGreaterThan(before);
    accepted = before;
  });

  it('a redirect to a private address is not followed', async () => {
    stub.setBehavior({ redirectTo: `http://127.0.0.1:${port}/latest/meta-data` });
    const res = await viaProxy(allowList, stub.url);
    expect(res.status).toBe(502);
    expect(JSON.parse(res.text).error.code).toBe('upstream_redirect');
    expect(stub.requests).toHaveLength(1);
    expect(accepted).toBe(0);
  });

  it('PROXY_ALLOWED_HOSTS refuses other hosts; an allowed target works', async () => {
    stub.setBehavior({ reply: 'allowed target answered' });
    const ok = await viaProxy(allowList, stub.url);
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.text).choices[0].message.content).toBe('allowed target answered');
    expect(stub.requests.at(-1)?.headers.authorization).toBe(`Bearer ${KEY}`);
    const other = await viaProxy(allowList, stub.url.replace('127.0.0.1', 'localhost'));
    expect(other.status).toBe(400);
    expect(JSON.parse(other.text).error.message).toContain('PROXY_ALLOWED_HOSTS');
  });
});
