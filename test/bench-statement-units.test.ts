import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ensureTable } from '@memgate/adapters';
import { toItem } from '@memgate/adapters/dynamodb/context-items';
import { createDynamoContextRepository } from '@memgate/adapters/dynamodb/context-repository';
import { describe, expect, it } from 'vitest';
import { meteredStatements } from '../bench/lib/statement-units.ts';
import { recordFor } from './conformance/context-record.ts';
import { createTestTable } from './support/dynamo.ts';

// bench:cost's write units of PartiQL statements (DynamoDB Local reports none) must be what the same write costs
// through the API that DynamoDB Local does meter.

async function setup() {
  const { documentClient, tableName } = await createTestTable('units');
  const shadow = `${tableName}-shadow`;
  await ensureTable(documentClient, shadow);
  const metered = createDynamoContextRepository({
    client: Object.assign(Object.create(documentClient), {
      send: async (command: { constructor: { name: string }; input: { Statements?: never[] } }) => {
        if (command.constructor.name !== 'BatchExecuteStatementCommand') return documentClient.send(command as never);
        const run = await meteredStatements(documentClient, tableName, shadow, command.input.Statements ?? [], () =>
          documentClient.send(command as never),
        );
        units += run.units;
        return run.output;
      },
    }),
    tableName,
    clock: { now: () => new Date('2030-01-01T00:00:00.000Z') },
  });
  let units = 0;
  const take = () => {
    const taken = units;
    units = 0;
    return taken;
  };
  return { documentClient, tableName, metered, take };
}

const big = (kind: 'document' | 'chunk') =>
  recordFor({ kind, text: 'y'.repeat(1500), content: kind === 'chunk' ? 'y'.repeat(1500) : 'x'.repeat(1200) });

describe('bench:cost, PartiQL write units', () => {
  it('an INSERT costs what a PutItem of the same item costs, an existing key one unit', async () => {
    const { documentClient, tableName, metered, take } = await setup();
    const document = big('document');
    await metered.createMany([document]);
    const inserted = take();
    const twin = { ...document, _id: `${document._id}-twin` };
    const put = await documentClient.send(
      new PutCommand({ TableName: tableName, Item: toItem(twin), ReturnConsumedCapacity: 'TOTAL' }),
    );
    expect(inserted).toBeGreaterThan(1);
    expect(inserted).toBe(put.ConsumedCapacity?.CapacityUnits);
    await metered.createMany([document]);
    expect(take()).toBe(1);
  });

  it('a conditional UPDATE costs what an UpdateItem making the same change costs', async () => {
    const { documentClient, tableName, metered, take } = await setup();
    const [chunk, twin] = [big('chunk'), big('chunk')];
    await metered.putMany([chunk, twin]);
    await metered.transition([chunk._id], ['indexed'], 'deleting');
    const moved = take();
    const after = await metered.get(chunk._id);
    const update = await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: { pk: `ctx#${twin._id}`, sk: 'ctx' },
        UpdateExpression: 'SET #status = :status, #indexed = :indexed, #updatedAt = :now, gsi4pk = :upk, gsi4sk = :usk',
        ExpressionAttributeNames: { '#status': 'status', '#indexed': 'indexed', '#updatedAt': 'updatedAt' },
        ExpressionAttributeValues: {
          ':status': 'deleting',
          ':indexed': false,
          ':now': after?.updatedAt,
          ':upk': 'ctx#unsettled',
          ':usk': `${after?.updatedAt}#${twin._id}`,
        },
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    expect(moved).toBeGreaterThan(1);
    expect(moved).toBe(update.ConsumedCapacity?.CapacityUnits);
    await metered.transition([chunk._id], ['indexed'], 'deleting');
    expect(take()).toBe(1);
  });
});
