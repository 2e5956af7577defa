import { spawn } from 'node:child_process';
import { pathToFileURL } from 'node:url';

/** Timings of one cold start, measured inside the fresh process. */
export interface ColdStart {
  /** Importing the bundle: module loading plus the composition root (config, clients, app). */
  importMs: number;
  /** Serving the first event after the import. */
  firstEventMs: number;
  /** importMs + firstEventMs: what the 150 ms budget measures. */
  coldStartMs: number;
  /** From the process's own start (Node boot included) to the first event served. */
  sinceProcessStartMs: number;
  /** The first response's status code. */
  statusCode: number | undefined;
}

// Runs in the fresh process: a stand-in for the Lambda runtime's `awslambda` global (streaming handlers), the
// bundle's import, then one event. Output: one JSON line.
const CHILD = `
import { Writable } from 'node:stream';
const [bundleUrl, eventJson] = process.argv.slice(-2);
const streaming = new WeakSet();
globalThis.awslambda = {
  streamifyResponse(handler) { streaming.add(handler); return handler; },
  HttpResponseStream: { from(stream, prelude) { stream.prelude = prelude; return stream; } },
};
const context = { functionName: 'bench', awsRequestId: 'bench', getRemainingTimeInMillis: () => 60000 };
const event = JSON.parse(eventJson);
const t0 = performance.now();
const { handler } = await import(bundleUrl);
const t1 = performance.now();
let statusCode;
if (streaming.has(handler)) {
  const sink = new Writable({ write(_chunk, _encoding, done) { done(); } });
  await handler(event, sink, context);
  statusCode = sink.prelude?.statusCode;
} else {
  statusCode = (await handler(event, context))?.statusCode;
}
const t2 = performance.now();
process.stdout.write(JSON.stringify({ importMs: t1 - t0, firstEventMs: t2 - t1, coldStartMs: t2 - t0, sinceProcessStartMs: t2, statusCode }) + '\\n');
process.exit(0);
`;

/**
 * One cold start of a built Lambda bundle: a fresh `node` process imports it and serves `event` (an API Gateway v2
 * or function URL event, or any event for the cleanup). `env` configures the bundle as infra would (TABLE_NAME,
 * PINECONE_*, AUTH_* ...); it is merged over this process's environment.
 */
export function measureColdStart(
  bundlePath: string,
  event: unknown,
  { env = {}, timeoutMs = 30_000 }: { env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<ColdStart> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--input-type=module', '-e', CHILD, pathToFileURL(bundlePath).href, JSON.stringify(event)],
      { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs },
    );
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
    });
    child.stderr.on('data', (chunk) => {
      err += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const line = out
        .trim()
        .split('\n')
        .findLast((candidate) => candidate.startsWith('{"importMs"'));
      if (code !== 0 || !line) {
        // Node prints the throwing source line (minified: huge) before `SomeError: message`.
        const reason =
          err.split('\n').find((text) => text.length < 1000 && /^(?:[A-Z]\w*)?Error(?: \[\w+\])?: /.test(text)) ??
          err.trim().slice(-300);
        reject(new Error(`cold start of ${bundlePath} failed (exit ${code}): ${reason}`));
        return;
      }
      resolve(JSON.parse(line) as ColdStart);
    });
  });
}

/** `runs` cold starts in sequence and their median (the figure the budget applies to). */
export async function measureColdStarts(
  bundlePath: string,
  event: unknown,
  { runs = 5, ...options }: { runs?: number; env?: Record<string, string>; timeoutMs?: number } = {},
): Promise<{ samples: ColdStart[]; medianMs: number }> {
  const samples: ColdStart[] = [];
  for (let i = 0; i < runs; i++) samples.push(await measureColdStart(bundlePath, event, options));
  const sorted = samples.map((sample) => sample.coldStartMs).sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const medianMs =
    sorted.length % 2 === 1
      ? (sorted[middle] as number)
      : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
  return { samples, medianMs };
}
