/**
 * Where a proxied call's time goes, on the local server as `npm run bench` runs it (a child process, its own
 * DynamoDB Local, the test suite's upstream stub in this process): for each case, the round trip's p50/p99, the CPU
 * it cost the server and DynamoDB Local per request (from /proc, which a busy shared machine changes far less than
 * wall time), the CPU still spent after the last request (work left for later, e.g. captured exchanges), and a CPU
 * profile of the server's main thread by area (self time). Run:
 * `npx tsx bench/proxy-profile.ts [--requests=2000] [--cases=passthrough,stream,filtering,defaults] [--keep=<dir>]`.
 * Cases: `passthrough` (filter, context and store off), `stream` (the same, streamed: the stub sends the reply in
 * 12 chunks at once; the round trip is to the last byte), `filtering` (store off), `defaults` (no switch: filtering,
 * context and storing on). The caller's tenant holds 1,000 chunks of the bench corpus, added over HTTP first; each
 * request is the bench's 20-message conversation asking about another chunk of it (proxy-defaults.ts).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { signLocalToken } from '@memgate/local/token';
import { startUpstreamStub } from '../test/support/upstream-stub.ts';
import { PASSTHROUGH } from './areas/proxy.ts';
import { bodyOf } from './areas/proxy-defaults.ts';
import { addBody } from './lib/corpus.ts';
import { processTreeCpuMs } from './lib/cpu.ts';
import { closeHttp, expectStatus, postJson } from './lib/http.ts';
import { selfTimeByArea } from './lib/profile-areas.ts';
import { startServerChild } from './lib/server.ts';
import { summarize } from './lib/stats.ts';

const arg = (name: string) => process.argv.find((value) => value.startsWith(`--${name}=`))?.slice(name.length + 3);
const requests = Number(arg('requests') ?? 2000);
const cases = (arg('cases') ?? 'passthrough,stream,filtering,defaults').split(',');
/** `--keep=<dir>`: the profiles are also written there, as `proxy-<case>.cpuprofile` (Chrome DevTools opens them). */
const keep = arg('keep');
const SECRET = 'memgate-proxy-profile-secret-0123456789';
const USER = 'proxy-profile';
const CASES: Record<string, Record<string, string>> = {
  passthrough: PASSTHROUGH,
  stream: PASSTHROUGH,
  filtering: { 'x-memgate-store': 'off' },
  defaults: {},
};

const dataDir = mkdtempSync('/dev/shm/memgate-proxy-profile-');
const stub = await startUpstreamStub({
  behavior: { reply: 'The quarterly invoice was paid and the refund went out on Monday.' },
});
const server = await startServerChild({
  DATA_DIR: dataDir,
  PORT: '0',
  LOG_LEVEL: 'info',
  AUTH_JWT_SECRET: SECRET,
  PROXY_ALLOW_PRIVATE_TARGETS: 'true',
  NODE_NO_WARNINGS: '1',
});
const fixed = (value: number, digits = 3) => value.toFixed(digits);
try {
  const authorization = `Bearer ${await signLocalToken(SECRET, { user: USER })}`;
  for (let call = 0; call < 10; call++) {
    const body = addBody({ firstSeed: call * 10, documents: 10, chunksPerDocument: 10, source: 'corpus' });
    expectStatus(await postJson(`${server.url}/api/v1/context/add`, body, { authorization }), 201, 'corpus add');
  }
  const url = `${server.url}/api/v1/proxy/${encodeURIComponent(stub.url)}/profile-target-key/chat/completions`;
  let sent = 0;
  // Each request asks about another chunk of the caller's corpus, as the bench's defaults case does.
  const send = async (headers: Record<string, string>, stream: boolean) =>
    expectStatus(
      await postJson(url, stream ? { ...bodyOf(sent++), stream } : bodyOf(sent++), { authorization, ...headers }),
      200,
      'proxy',
    ).ms;
  /** CPU of the server's own process and of DynamoDB Local (its child) since `from`, in ms. */
  const cpuSince = (from: { own: number; children: number }) => {
    const now = processTreeCpuMs(server.pid);
    return { own: now.own - from.own, children: now.children - from.children };
  };
  for (const name of cases) {
    const headers = CASES[name];
    if (!headers) throw new Error(`unknown case ${name}; cases: ${Object.keys(CASES).join(', ')}`);
    const stream = name === 'stream';
    for (let i = 0; i < 300; i++) await send(headers, stream);
    await sleep(2000);
    const before = processTreeCpuMs(server.pid);
    const latencies: number[] = [];
    for (let i = 0; i < requests; i++) latencies.push(await send(headers, stream));
    const during = cpuSince(before);
    await sleep(3000);
    const after = cpuSince(before);
    const wall = summarize(latencies);
    console.log(
      `\n${name}: ${requests} requests at concurrency 1; round trip p50 ${fixed(wall.p50)} ms, p99 ${fixed(wall.p99)} ms; ` +
        `CPU per request: server ${fixed(during.own / requests)} ms, DynamoDB Local ${fixed(during.children / requests)} ms; ` +
        `after the last request (3 s): server ${fixed((after.own - during.own) / requests)} ms, DynamoDB Local ${fixed((after.children - during.children) / requests)} ms per request`,
    );
    await server.startProfile();
    for (let i = 0; i < requests; i++) await send(headers, stream);
    const profile = await server.stopProfile();
    if (keep) writeFileSync(join(keep, `proxy-${name}.cpuprofile`), JSON.stringify(profile));
    await sleep(3000);
    const areas = selfTimeByArea(profile, { nativeToCaller: true });
    const busy = areas.reduce((sum, area) => sum + (area.name === 'idle' ? 0 : area.ms), 0);
    console.log(
      `  server main thread, self time per request by area, builtins counted in their caller's (profiled pass, ${fixed(busy / requests)} ms busy):`,
    );
    for (const area of areas) {
      const share = area.name === 'idle' ? '' : `${fixed((100 * area.ms) / busy, 1)}%`;
      console.log(`    ${area.name.padEnd(52)} ${fixed(area.ms / requests)} ms  ${share}`);
    }
  }
} finally {
  await server.stop();
  await stub.close();
  await closeHttp();
  rmSync(dataDir, { recursive: true, force: true });
}
