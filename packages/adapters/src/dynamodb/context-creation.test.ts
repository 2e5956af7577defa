import { BatchExecuteStatementCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { recordFor } from '../../../../test/conformance/context-record.ts';
import { createTestTable } from '../../../../test/support/dynamo.ts';
import { createAbsent } from './context-creation.ts';

const table = createTestTable('ctxcreate');

/**
 * The client, listing its requests by command. With `refuseFirst`, the first statement of the first
 * BatchExecuteStatement is not sent and is answered as throttled, as DynamoDB answers a statement it did not run.
 */
function watched(client: DynamoDBDocumentClient, { refuseFirst = false } = {}) {
  const sent: string[] = [];
  const send = client.send.bind(client) as (command: unknown) => Promise<unknown>;
  const proxy = Object.create(client) as DynamoDBDocumentClient;
  let refused = !refuseFirst;
  proxy.send = (async (command: { constructor: { name: string } }) => {
    sent.push(command.constructor.name);
    if (refused || !(command instanceof BatchExecuteStatementCommand)) return send(command);
    refused = true;
    const [, ...rest] = command.input.Statements ?? [];
    const output = (await send(new BatchExecuteStatementCommand({ Statements: rest }))) as { Responses?: unknown[] };
    return { ...output, Responses: [{ Error: { Code: 'ThrottlingError' } }, ...(output.Responses ?? [])] };
  }) as never;
  return { client: proxy, sent };
}

describe('createAbsent (DynamoDB)', () => {
  it('creates up to 25 records per request, each only if absent, and reports the ones that existed', async () => {
    const { documentClient, tableName } = await table;
    const existing = recordFor({ kind: 'document', status: 'deleting', indexed: false, content: "it's a quote" });
    await createAbsent(documentClient, tableName, [existing]);
    const fresh = Array.from({ length: 30 }, () => recordFor({ kind: 'document' }));
    const { client, sent } = watched(documentClient);
    const replacement = { ...existing, status: 'indexed' as const, indexed: true };
    expect(await createAbsent(client, tableName, [replacement, ...fresh])).toEqual([existing._id]);
    expect(sent).toEqual(['BatchExecuteStatementCommand', 'BatchExecuteStatementCommand']);
  });

  it('a statement refused for another reason than an existing key is retried alone, conditionally', async () => {
    const { documentClient, tableName } = await table;
    const records = Array.from({ length: 3 }, () => recordFor({ kind: 'document' }));
    const { client, sent } = watched(documentClient, { refuseFirst: true });
    expect(await createAbsent(client, tableName, records)).toEqual([]);
    expect(sent).toEqual(['BatchExecuteStatementCommand', 'PutCommand']);
    const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const first = await documentClient.send(
      new GetCommand({ TableName: tableName, Key: { pk: `ctx#${records[0]?._id}`, sk: 'ctx' } }),
    );
    expect(first.Item?._id).toBe(records[0]?._id);
    // Tried again, all three exist now.
    expect(await createAbsent(documentClient, tableName, records)).toEqual(records.map((record) => record._id));
  });
});
