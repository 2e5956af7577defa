import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signLocalToken } from '@memgate/local/token';
import { startUpstreamStub } from '../../test/support/upstream-stub.ts';
import { startServerChild } from '../lib/server.ts';
import type { EvalTarget } from './target.ts';

const SECRET = 'memgate-eval-secret-0123456789abcdef';

export interface EvalServer extends EvalTarget {
  close(): Promise<void>;
}

/** The forwarded messages of the stub's last request, which is then forgotten. */
export function takeLastMessages(requests: { body: unknown }[]): { role: string; content: string }[] {
  const last = requests.pop();
  requests.length = 0;
  if (!last) throw new Error('the upstream received no request');
  return (last.body as { messages: { role: string; content: string }[] }).messages;
}

/**
 * The local server in a child process on a fresh DATA_DIR (its own DynamoDB Local), with `env` added to its
 * configuration (an idea's switches), and a recording upstream for route A.
 */
export async function startEvalServer(env: Record<string, string> = {}): Promise<EvalServer> {
  const dataDir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'memgate-eval-'));
  const stub = await startUpstreamStub({ behavior: { reply: 'ok' } });
  try {
    const server = await startServerChild({
      DATA_DIR: dataDir,
      PORT: '0',
      LOG_LEVEL: 'warn',
      AUTH_JWT_SECRET: SECRET,
      PROXY_ALLOW_PRIVATE_TARGETS: 'true',
      NODE_NO_WARNINGS: '1',
      ...env,
    });
    return {
      url: server.url,
      upstreamUrl: stub.url,
      token: (user) => signLocalToken(SECRET, { user }),
      takeForwarded: () => takeLastMessages(stub.requests),
      async close() {
        await Promise.allSettled([server.stop(), stub.close()]);
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await stub.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}
