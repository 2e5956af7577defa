/**
 * Where an add's CPU goes, on the local server as `npm run bench` runs it (a child process with its own DynamoDB
 * Local, an empty table): rounds of the add area's load (adds of 10 documents × 10 chunks over HTTP, 4 connections),
 * each followed by raw BatchWrite of the same items from this process (8 writers, bench/lib/raw-writes.ts). Per
 * round: items per second both ways, the CPU per item of the server and of DynamoDB Local (from /proc) during the
 * load and until the work the adds left for later is done (vectors waiting for the graph), and for the last round a CPU
 * profile of the server's main thread by area (self time). Run:
 * `npx tsx bench/add-profile.ts [--rounds=3] [--adds=40] [--keep=<dir>]` (`--keep`: `add.cpuprofile` there;
 * JDK_JAVA_OPTIONS in its environment goes to DynamoDB Local's JVM).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createDocumentClient } from '@memgate/adapters/dynamodb/client';
import { signLocalToken } from '@memgate/local/token';
import { addBody } from './lib/corpus.ts';
import { machineCpuMs, processTreeCpuMs } from './lib/cpu.ts';
import { passedOnOf } from './lib/env.ts';
import { closeHttp } from './lib/http.ts';
import { runLoad } from './lib/load.ts';
import { selfTimeByArea } from './lib/profile-areas.ts';
import { itemsOf, rawBatchWriteRate } from './lib/raw-writes.ts';
import { startServerChild } from './lib/server.ts';

const arg = (name: string) => process.argv.find((value) => value.startsWith(`--${name}=`))?.slice(name.length + 3);
const rounds = Number(arg('rounds') ?? 3);
const adds = Number(arg('adds') ?? 40);
const keep = arg('keep');
const SECRET = 'memgate-add-profile-secret-0123456789';
const TABLE_NAME = 'memgate-add-profile';

const dataDir = mkdtempSync('/dev/shm/memgate-add-profile-');
const server = await startServerChild({
  DATA_DIR: dataDir,
  TABLE_NAME,
  PORT: '0',
  LOG_LEVEL: 'info',
  AUTH_JWT_SECRET: SECRET,
  NODE_NO_WARNINGS: '1',
  ...passedOnOf(process.env),
});
const client = createDocumentClient({ endpoint: server.dynamoEndpoint });
const fixed = (value: number, digits = 3) => value.toFixed(digits);
const cores = availableParallelism();
const machineSince = (from: { busy: number; idle: number }) => {
  const now = machineCpuMs();
  return { busy: now.busy - from.busy, idle: now.idle - from.idle };
};
const idleShare = (cpu: { busy: number; idle: number }) => `${fixed((100 * cpu.idle) / (cpu.busy + cpu.idle), 1)}%`;
const ownMsSince = (from: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
};
const cpuSince = (from: { own: number; children: number }) => {
  const now = processTreeCpuMs(server.pid);
  return { own: now.own - from.own, children: now.children - from.children };
};
try {
  const headers = { authorization: `Bearer ${await signLocalToken(SECRET, { user: 'add-profile' })}` };
  for (let round = 0; round < rounds; round++) {
    const bodies = Array.from({ length: adds }, (_, i) =>
      addBody({ firstSeed: 20_000_000 + (round * adds + i) * 10, documents: 10, chunksPerDocument: 10 }),
    );
    const items = itemsOf(
      bodies.flatMap((body) => body.documents),
      `raw-${round}`,
    );
    const profiled = round === rounds - 1;
    if (profiled) await server.startProfile();
    const before = processTreeCpuMs(server.pid);
    const machineBefore = machineCpuMs();
    const ownBefore = process.cpuUsage();
    const run = await runLoad(
      {
        url: `${server.url}/api/v1/context/add`,
        headers,
        bodies: bodies.map((body) => JSON.stringify(body)),
        connections: 4,
        amount: adds,
        what: 'context add',
      },
      201,
    );
    const during = cpuSince(before);
    const httpMachine = machineSince(machineBefore);
    const httpOwn = ownMsSince(ownBefore);
    const settling = performance.now();
    await server.settled();
    const catchUp = (performance.now() - settling) / 1000;
    const after = cpuSince(before);
    const profile = profiled ? await server.stopProfile() : undefined;
    const rawBefore = processTreeCpuMs(server.pid);
    const rawMachineBefore = machineCpuMs();
    const rawOwnBefore = process.cpuUsage();
    const raw = await rawBatchWriteRate({ client, tableName: TABLE_NAME, items, writers: 8 });
    const rawCpu = cpuSince(rawBefore);
    const rawMachine = machineSince(rawMachineBefore);
    const rawOwn = ownMsSince(rawOwnBefore);
    const n = items.length;
    const httpRate = n / run.seconds;
    const caughtUp = n / (run.seconds + catchUp);
    console.log(
      `round ${round + 1}: ${n} items; HTTP ${Math.round(httpRate)} items/s (${Math.round(caughtUp)} until the graph caught up, ${fixed(catchUp, 2)} s after), raw ${Math.round(raw.itemsPerSecond)} items/s, ratio ${fixed(httpRate / raw.itemsPerSecond)} (${fixed(caughtUp / raw.itemsPerSecond)})\n` +
        `  CPU per item during the load: server ${fixed(during.own / n)} ms, DynamoDB Local ${fixed(during.children / n)} ms; ` +
        `until the graph caught up: server ${fixed((after.own - during.own) / n)} ms, DynamoDB Local ${fixed((after.children - during.children) / n)} ms; ` +
        `raw BatchWrite: DynamoDB Local ${fixed(rawCpu.children / n)} ms\n` +
        `  this process (load generator / raw writer) per item: HTTP ${fixed(httpOwn / n)} ms, raw ${fixed(rawOwn / n)} ms; ` +
        `machine (${cores} cores, everyone's work) busy per item: HTTP ${fixed(httpMachine.busy / n)} ms, raw ${fixed(rawMachine.busy / n)} ms; ` +
        `idle: HTTP ${idleShare(httpMachine)}, raw ${idleShare(rawMachine)}`,
    );
    if (!profile) continue;
    if (keep) writeFileSync(join(keep, 'add.cpuprofile'), JSON.stringify(profile));
    const areas = selfTimeByArea(profile, { nativeToCaller: true });
    const busy = areas.reduce((sum, area) => sum + (area.name === 'idle' ? 0 : area.ms), 0);
    console.log(
      `  server main thread, self time per item by area, builtins counted in their caller's (load and catching up, ${fixed(busy / n)} ms busy):`,
    );
    for (const area of areas) {
      const share = area.name === 'idle' ? '' : `${fixed((100 * area.ms) / busy, 1)}%`;
      console.log(`    ${area.name.padEnd(52)} ${fixed(area.ms / n)} ms  ${share}`);
    }
  }
} finally {
  client.destroy();
  await server.stop();
  await closeHttp();
  rmSync(dataDir, { recursive: true, force: true });
}
