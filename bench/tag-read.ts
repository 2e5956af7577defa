/**
 * What one tenant's generation-tag read costs, over DynamoDB Local, all strongly consistent: a GetItem of the whole
 * item (what search sends), the same projected to the tag's attributes (before session 11), and a one-key
 * BatchGetItem projected (before session 6): blocks of 100 calls alternated 40 times after 3,000 to warm the JVM, then
 * the median round trip seen from the client, and the median CPU per call of a block of this process and of
 * DynamoDB Local's JVM (from /proc: 10 ms ticks, so a block's figure is coarse). Run: `npx tsx bench/tag-read.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '@memgate/adapters';
import { startDynamoLocal } from '@memgate/local/dynamo-local';
import { processTreeCpuMs } from './lib/cpu.ts';

const TABLE = 'tag-read';
const Key = { pk: 'ctx#generation#user:bench', sk: 'generation' };
const projection = {
  ProjectionExpression: '#tenant, #generation, #epoch',
  ExpressionAttributeNames: { '#tenant': 'tenant', '#generation': 'generation', '#epoch': 'epoch' },
};
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

const dataDir = mkdtempSync(join('/dev/shm', 'memgate-tag-read-'));
const dynamo = await startDynamoLocal({ dataDir });
try {
  const client = createDocumentClient({ endpoint: dynamo.endpoint });
  await client.send(
    new CreateTableCommand({
      TableName: TABLE,
      BillingMode: 'PAY_PER_REQUEST',
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        { AttributeName: 'sk', KeyType: 'RANGE' },
      ],
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        { AttributeName: 'sk', AttributeType: 'S' },
      ],
    }),
  );
  await client.send(
    new PutCommand({ TableName: TABLE, Item: { ...Key, tenant: 'user:bench', generation: 3, epoch: 'e' } }),
  );
  const reads = {
    batch: () =>
      client.send(
        new BatchGetCommand({ RequestItems: { [TABLE]: { Keys: [Key], ConsistentRead: true, ...projection } } }),
      ),
    'GetItem, projected': () =>
      client.send(new GetCommand({ TableName: TABLE, Key, ConsistentRead: true, ...projection })),
    GetItem: () => client.send(new GetCommand({ TableName: TABLE, Key, ConsistentRead: true })),
  };
  const kinds = ['batch', 'GetItem, projected', 'GetItem'] as const;
  const samples = () => Object.fromEntries(kinds.map((kind) => [kind, [] as number[]])) as Record<string, number[]>;
  const [wall, cpu, jvm] = [samples(), samples(), samples()];
  for (let i = 0; i < 1000; i++) for (const kind of kinds) await reads[kind]();
  for (let round = 0; round < 40; round++)
    for (const kind of round % 2 === 0 ? kinds : [...kinds].reverse()) {
      const start = process.cpuUsage();
      const javaStart = processTreeCpuMs(process.pid).children;
      for (let i = 0; i < 100; i++) {
        const began = performance.now();
        await reads[kind]();
        wall[kind]?.push(performance.now() - began);
      }
      const used = process.cpuUsage(start);
      cpu[kind]?.push((used.user + used.system) / 100 / 1000);
      jvm[kind]?.push((processTreeCpuMs(process.pid).children - javaStart) / 100);
    }
  for (const kind of kinds)
    console.log(
      `${(kind === 'batch' ? 'BatchGetItem, projected' : kind).padEnd(24)} round trip p50 ${median(wall[kind] ?? []).toFixed(3)} ms, process CPU per call ${median(cpu[kind] ?? []).toFixed(3)} ms, DynamoDB Local's JVM ${median(jvm[kind] ?? []).toFixed(3)} ms`,
    );
} finally {
  await dynamo.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
