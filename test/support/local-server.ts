import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@memgate/adapters';
import { silentLogger } from '@memgate/http';
import { type RunningServer, startLocalServer } from '@memgate/local/server';
import { inject } from 'vitest';

/**
 * The real local server (`startLocalServer`: every area, the embedded vector index) for a test file: a fresh
 * DATA_DIR, a table of its own (`name` and a random suffix) on the run's DynamoDB Local, a free port, and `env` for
 * the rest of its configuration (AUTH_JWT_SECRET at least). `stop` also removes the DATA_DIR.
 */
export async function startTestLocalServer(name: string, env: Record<string, string>): Promise<RunningServer> {
  const dataDir = mkdtempSync(join(tmpdir(), `memgate-${name}-`));
  const removeData = () => rmSync(dataDir, { recursive: true, force: true });
  const config = loadConfig({
    DATA_DIR: dataDir,
    DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
    TABLE_NAME: `${name}-${randomUUID().slice(0, 8)}`,
    PORT: '0',
    ...env,
  });
  let server: RunningServer;
  try {
    server = await startLocalServer(config, silentLogger);
  } catch (error) {
    removeData();
    throw error;
  }
  return {
    ...server,
    async stop() {
      await server.stop();
      removeData();
    },
  };
}
