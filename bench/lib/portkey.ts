import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { freePort } from '@memgate/local/dynamo-local';
import { request } from 'undici';

export interface PortkeyGateway {
  url: string;
  /** Headers that route a request through the gateway to an OpenAI-compatible upstream at `upstreamBase`. */
  headersFor(upstreamBase: string): Record<string, string>;
  stop(): Promise<void>;
}

const START = fileURLToPath(new URL('../../node_modules/@portkey-ai/gateway/build/start-server.js', import.meta.url));
const SHIM = fileURLToPath(new URL('./portkey-fetch-shim.mjs', import.meta.url));

/**
 * Starts `@portkey-ai/gateway` (the proxy peer) headless on a free port, with the fetch shim that lets it stream under
 * Node (portkey-fetch-shim.mjs says why). BENCH_PORTKEY_LOG=1 shows its output.
 */
export async function startPortkey(): Promise<PortkeyGateway> {
  const port = await freePort();
  const child: ChildProcess = spawn(process.execPath, ['--import', SHIM, START, `--port=${port}`, '--headless'], {
    env: { ...process.env, TRUSTED_CUSTOM_HOSTS: '127.0.0.1,localhost', NODE_NO_WARNINGS: '1' },
    stdio: process.env.BENCH_PORTKEY_LOG ? 'inherit' : 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`portkey gateway exited with code ${child.exitCode}`);
    try {
      const response = await request(url);
      await response.body.dump();
      break;
    } catch {
      if (Date.now() > deadline) throw new Error('portkey gateway did not start within 30 s');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return {
    url,
    headersFor: (upstreamBase) => ({
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': upstreamBase,
      authorization: 'Bearer k',
    }),
    async stop() {
      if (child.exitCode !== null) return;
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    },
  };
}
