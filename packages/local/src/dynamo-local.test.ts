import { execFileSync } from 'node:child_process';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createDocumentClient } from '@memgate/adapters';
import { describe, expect, it } from 'vitest';
import { startDynamoLocal } from './dynamo-local.ts';

function javaRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('startDynamoLocal', () => {
  it('starts a working DynamoDB Local and leaves no java process after stop', async () => {
    const dynamo = await startDynamoLocal();
    const client = createDocumentClient({ endpoint: dynamo.endpoint });
    const tables = await client.send(new ListTablesCommand({}));
    expect(tables.TableNames).toEqual([]);
    client.destroy();
    await dynamo.stop();
    expect(javaRunning(dynamo.pid)).toBe(false);
  }, 30_000);

  it('kills java when its parent dies by SIGKILL', async () => {
    // A child node process starts DynamoDB Local, prints java's pid, and is then killed without cleanup.
    const script = `import { startDynamoLocal } from './packages/local/src/dynamo-local.ts';
const d = await startDynamoLocal(); console.log(d.pid); setInterval(() => {}, 1000);`;
    const { spawn } = await import('node:child_process');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const pid = await new Promise<number>((resolve) =>
      child.stdout.once('data', (d) => resolve(Number(String(d).trim()))),
    );
    expect(javaRunning(pid)).toBe(true);
    child.kill('SIGKILL');
    const deadline = Date.now() + 10_000;
    while (javaRunning(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    expect(javaRunning(pid)).toBe(false);
    void execFileSync;
  }, 40_000);
});
