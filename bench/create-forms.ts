/**
 * What DynamoDB Local charges for creating a document row only if absent, by the form of the create, against a plain
 * put of the same rows (bench/OVER-BUDGET.md, "Add throughput"). Each block writes the document rows of 150 adds of
 * the bench's add area (10 documents each, fresh keys) from 4 loops, one add's rows at a time:
 * - `plain`: one BatchWriteItem of the 10 rows (no condition: what raw BatchWrite does);
 * - `insert`: what an add sends (`createAbsent`: PartiQL INSERTs in one BatchExecuteStatement);
 * - `put`: 10 PutItems with `attribute_not_exists(pk)`, sent together;
 * - `transaction`: one TransactWriteItems of the 10 conditional puts (twice the write units on AWS).
 * Blocks alternate after a warm-up block of each; per form, the medians per row of DynamoDB Local's CPU (its JVM,
 * from /proc: 10 ms ticks), of this process's CPU (the client's side: the SDK and the HTTP client) and of wall time.
 * Run: `npx tsx bench/create-forms.ts [--blocks=8]`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { BatchWriteCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { createDocumentClient } from '@memgate/adapters/dynamodb/client';
import { createAbsent } from '@memgate/adapters/dynamodb/context-creation';
import { toItem } from '@memgate/adapters/dynamodb/context-items';
import { ensureTable } from '@memgate/adapters/dynamodb/table-setup';
import type { ContextRecord } from '@memgate/core';
import { startDynamoLocal } from '@memgate/local/dynamo-local';
import { addBody } from './lib/corpus.ts';
import { processTreeCpuMs } from './lib/cpu.ts';
import { recordsOf } from './lib/raw-writes.ts';

const TABLE = 'create-forms';
const ADDS_PER_BLOCK = 150;
const LOOPS = 4;
const blocks = Number(process.argv.find((value) => value.startsWith('--blocks='))?.slice(9) ?? 8);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] as number;

const dataDir = mkdtempSync(join('/dev/shm', 'memgate-create-forms-'));
const dynamo = await startDynamoLocal({ dataDir });
try {
  const client = createDocumentClient({ endpoint: dynamo.endpoint });
  await ensureTable(client, TABLE);
  const forms: Record<string, (rows: ContextRecord[]) => Promise<unknown>> = {
    plain: (rows) =>
      client.send(
        new BatchWriteCommand({
          RequestItems: { [TABLE]: rows.map((row) => ({ PutRequest: { Item: toItem(row) } })) },
        }),
      ),
    insert: (rows) => createAbsent(client, TABLE, rows),
    put: (rows) =>
      Promise.all(
        rows.map((row) =>
          client.send(
            new PutCommand({ TableName: TABLE, Item: toItem(row), ConditionExpression: 'attribute_not_exists(pk)' }),
          ),
        ),
      ),
    transaction: (rows) =>
      client.send(
        new TransactWriteCommand({
          TransactItems: rows.map((row) => ({
            Put: { TableName: TABLE, Item: toItem(row), ConditionExpression: 'attribute_not_exists(pk)' },
          })),
        }),
      ),
  };
  let seed = 40_000_000;
  /** The document rows of one add of the bench's add area, for an owner no other add uses. */
  const documentRows = (): ContextRecord[] => {
    seed += 10;
    const body = addBody({ firstSeed: seed, documents: 10, chunksPerDocument: 10 });
    return recordsOf(body.documents, `forms-${seed}`).map((built) => built.document);
  };
  const block = async (form: string) => {
    const adds = Array.from({ length: ADDS_PER_BLOCK }, documentRows);
    const rows = adds.length * 10;
    const jvmBefore = processTreeCpuMs(dynamo.pid);
    const ownBefore = process.cpuUsage();
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: LOOPS }, async () => {
        while (next < adds.length) await forms[form]?.(adds[next++] as ContextRecord[]);
      }),
    );
    const wall = performance.now() - started;
    const jvm = processTreeCpuMs(dynamo.pid);
    const own = process.cpuUsage(ownBefore);
    return {
      jvm: (jvm.own + jvm.children - jvmBefore.own - jvmBefore.children) / rows,
      client: (own.user + own.system) / 1000 / rows,
      wall: wall / rows,
    };
  };
  const names = Object.keys(forms);
  for (const form of names) await block(form);
  const measured = new Map(names.map((form) => [form, [] as Awaited<ReturnType<typeof block>>[]]));
  for (let i = 0; i < blocks; i++) {
    for (const form of i % 2 ? [...names].reverse() : names) measured.get(form)?.push(await block(form));
  }
  console.log(`ms per document row, medians of ${blocks} blocks of ${ADDS_PER_BLOCK} adds × 10 rows`);
  console.log('form         DynamoDB Local CPU   client CPU   wall');
  for (const [form, runs] of measured) {
    const column = (pick: (run: (typeof runs)[number]) => number) => median(runs.map(pick)).toFixed(3);
    console.log(
      `${form.padEnd(12)} ${column((run) => run.jvm).padStart(18)} ${column((run) => run.client).padStart(12)} ${column((run) => run.wall).padStart(6)}`,
    );
  }
} finally {
  await dynamo.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
