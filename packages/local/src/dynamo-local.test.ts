import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { createDocumentClient } from '@memgate/adapters';
import { describe, expect, it } from 'vitest';
import { DYNAMO_LOCAL_JVM_OPTIONS, startDynamoLocal } from './dynamo-local.ts';

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

  it.skipIf(process.platform !== 'linux')(
    "runs java with the serial collector and both compilers, after the user's own Java options and without changing them",
    async () => {
      const before = process.env.JDK_JAVA_OPTIONS;
      process.env.JDK_JAVA_OPTIONS = '-Dmemgate.test=kept';
      try {
        const dynamo = await startDynamoLocal();
        const environ = readFileSync(`/proc/${dynamo.pid}/environ`, 'utf8').split('\0');
        // The JVM's own threads name its collector: G1 would run "G1 Refine#0", "G1 Conc#0" and the like.
        const threads = readdirSync(`/proc/${dynamo.pid}/task`).map((task) =>
          readFileSync(`/proc/${dynamo.pid}/task/${task}/comm`, 'utf8').trim(),
        );
        await dynamo.stop();
        expect(environ).toContain(`JDK_JAVA_OPTIONS=${DYNAMO_LOCAL_JVM_OPTIONS} -Dmemgate.test=kept`);
        expect(threads).toContain('VM Thread');
        expect(threads.filter((name) => name.startsWith('G1'))).toEqual([]);
        // Both compilers: C1 only made its writes 20-25% slower for good (dynamo-local.ts).
        expect(threads.filter((name) => name.startsWith('C1 CompilerThre'))).not.toEqual([]);
        expect(threads.filter((name) => name.startsWith('C2 CompilerThre'))).not.toEqual([]);
        expect(process.env.JDK_JAVA_OPTIONS).toBe('-Dmemgate.test=kept');
      } finally {
        if (before === undefined) delete process.env.JDK_JAVA_OPTIONS;
        else process.env.JDK_JAVA_OPTIONS = before;
      }
    },
    30_000,
  );

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
