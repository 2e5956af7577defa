/**
 * What one tenant's generation-tag read costs as a GetItem against a one-key BatchGetItem (both strongly consistent,
 * projected to the tag's attributes), over DynamoDB Local: blocks of 100 calls alternated 20 times, then the median
 * round trip seen from the client and the median process CPU per call of a block. Run: `npx tsx bench/tag-read.ts`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CreateTableCommand } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '@memgate/adapters';
import { startDynamoLocal } from '@memgate/local/dynamo-local';

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
    get: () => client.send(new GetCommand({ TableName: TABLE, Key, ConsistentRead: true, ...projection })),
  };
  const kinds = ['batch', 'get'] as const;
  const wall = { batch: [] as number[], get: [] as number[] };
  const cpu = { batch: [] as number[], get: [] as number[] };
  for (let i = 0; i < 200; i++) for (const kind of kinds) await reads[kind]();
  for (let round = 0; round < 20; round++)
    for (const kind of kinds) {
      const start = process.cpuUsage();
      for (let i = 0; i < 100; i++) {
        const began = performance.now();
        await reads[kind]();
        wall[kind].push(performance.now() - began);
      }
      const used = process.cpuUsage(start);
      cpu[kind].push((used.user + used.system) / 100 / 1000);
    }
  for (const kind of kinds)
    console.log(
      `${kind === 'get' ? 'GetItem      ' : 'BatchGetItem '} round trip p50 ${median(wall[kind]).toFixed(3)} ms, process CPU per call ${median(cpu[kind]).toFixed(3)} ms`,
    );
} finally {
  await dynamo.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
