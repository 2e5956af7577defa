/**
 * Write units of PartiQL statements, which DynamoDB Local does not report: its ExecuteStatement and
 * BatchExecuteStatement answers carry no ConsumedCapacity even when asked (checked against the DynamoDB Local this
 * project runs), while AWS bills each statement like the single-item write it stands for (an INSERT like a PutItem,
 * an UPDATE like an UpdateItem: the larger of the item before and after, in the table and in each index the item is
 * or was in). So each statement's write is measured again on a shadow table of the same shape: the item as it was
 * before the statement is put there unmetered, then the item as it is after is put there with
 * ReturnConsumedCapacity, which DynamoDB Local bills by the same rules (an INSERT: nothing before). A statement that
 * changed nothing (its condition failed) is counted at one unit, AWS's minimum for a failed conditional write.
 */
import { DeleteCommand, type DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';

interface Statement {
  Statement?: string;
  Parameters?: unknown[];
}
type Item = Record<string, unknown>;
type Key = { pk: unknown; sk: unknown };

/** The parameter that `"name" = ?` in the statement's WHERE clause binds (placeholders are numbered in order). */
function whereParameter(statement: Statement, name: string): unknown {
  const text = statement.Statement ?? '';
  const at = text.indexOf(`"${name}" = ?`, text.indexOf(' WHERE '));
  if (at < 0) return undefined;
  return statement.Parameters?.[text.slice(0, at).split('?').length - 1];
}

/** The key a write statement touches (INSERT: from its tuple; UPDATE: from its WHERE clause), if it is one. */
function keyOf(statement: Statement): Key | undefined {
  const text = statement.Statement ?? '';
  if (/^\s*INSERT\b/i.test(text)) {
    const names = [...text.matchAll(/'((?:[^']|'')*)'\s*:\s*\?/g)].map((match) => match[1]?.replaceAll("''", "'"));
    const item = Object.fromEntries(names.map((name, i) => [name, statement.Parameters?.[i]]));
    return { pk: item.pk, sk: item.sk };
  }
  if (/^\s*UPDATE\b/i.test(text)) return { pk: whereParameter(statement, 'pk'), sk: whereParameter(statement, 'sk') };
  return undefined;
}

/**
 * Measures a BatchExecuteStatement's write units: `run` sends it; `reader` reads the items before and after
 * (unmetered), `shadow` is a table of the same key schema and indexes, empty between calls.
 */
export async function meteredStatements<T>(
  reader: DynamoDBDocumentClient,
  tableName: string,
  shadow: string,
  statements: readonly Statement[],
  run: () => Promise<T>,
): Promise<{ output: T; units: number }> {
  const keys = statements.map(keyOf);
  const read = (key: Key | undefined) =>
    key
      ? reader
          .send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }))
          .then((found) => found.Item as Item | undefined)
      : Promise.resolve(undefined);
  const before = await Promise.all(keys.map(read));
  const output = await run();
  const after = await Promise.all(keys.map(read));
  let units = 0;
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i];
    const [was, is] = [before[i], after[i]];
    if (!key || !is) continue;
    if (JSON.stringify(was) === JSON.stringify(is)) {
      units += 1;
      continue;
    }
    if (was) await reader.send(new PutCommand({ TableName: shadow, Item: was }));
    const put = await reader.send(new PutCommand({ TableName: shadow, Item: is, ReturnConsumedCapacity: 'TOTAL' }));
    units += put.ConsumedCapacity?.CapacityUnits ?? 0;
    await reader.send(new DeleteCommand({ TableName: shadow, Key: key }));
  }
  return { output, units };
}
