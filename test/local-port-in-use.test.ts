import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '@memgate/adapters';
import { silentLogger } from '@memgate/http';
import { startLocalServer } from '@memgate/local/server';
import { afterAll, describe, expect, inject, it } from 'vitest';

// `npm start` on a port another program holds (another memgate on another DATA_DIR, a dev server on 8787).
describe('the local server on a port already in use', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'memgate-port-in-use-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('fails its start saying so, and leaves DATA_DIR free for the next start', async () => {
    const holder = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => holder.once('listening', resolve));
    const { port } = holder.address() as { port: number };
    const config = (portSetting: string) =>
      loadConfig({
        DATA_DIR: dataDir,
        DYNAMODB_ENDPOINT: inject('dynamoEndpoint'),
        TABLE_NAME: 'port-in-use',
        PORT: portSetting,
        AUTH_JWT_SECRET: 'port-in-use-secret-0123456789abcdef',
      });
    try {
      await expect(startLocalServer(config(String(port)), silentLogger)).rejects.toThrow(
        `port ${port} on 127.0.0.1 is already in use`,
      );
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
    expect(existsSync(join(dataDir, 'memgate.lock'))).toBe(false);
    // The same DATA_DIR starts at once on a free port: nothing of the failed start holds it.
    const server = await startLocalServer(config('0'), silentLogger);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    await server.stop();
  });
});
