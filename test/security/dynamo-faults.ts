import { ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { createDocumentClient } from '@memgate/adapters';
import type { TestTable } from '../support/dynamo.ts';

// Fault injection on a DynamoDB document client, through its middleware stack (the SDK's own extension point), so
// the adapters run unchanged: throttling that the SDK's retries absorb, throttling that outlasts them, and
// BatchWriteItem answers that leave part of the batch in UnprocessedItems.

/** Operation names as the SDK reports them, e.g. `BatchWriteItem`, `BatchExecuteStatement`, `Query`. */
export interface DynamoFaults {
  /** Throttle the next n calls of each operation below the SDK's retry (the SDK retries them). */
  transient: Record<string, number>;
  /** Throttle every call of these operations before any retry (as if throttling outlasted the retries). */
  persistent: Set<string>;
  /** Leave half of each batch unprocessed for the next n BatchWriteItem calls. */
  unprocessed: number;
  /** Counts of what was injected, by kind. */
  injected: { transient: number; persistent: number; unprocessed: number };
}

const throttled = (operation: string) =>
  new ProvisionedThroughputExceededException({
    message: `injected throttling of ${operation}`,
    $metadata: { httpStatusCode: 400 },
  });

type Args = { input: Record<string, unknown> };
type Output = { output: Record<string, unknown> };

/** A table whose document client misbehaves as `faults` says (the same DynamoDB Local table underneath). */
export function withFaults(table: TestTable): { table: TestTable; faults: DynamoFaults } {
  const documentClient = createDocumentClient({ endpoint: table.endpoint });
  const faults: DynamoFaults = {
    transient: {},
    persistent: new Set(),
    unprocessed: 0,
    injected: { transient: 0, persistent: 0, unprocessed: 0 },
  };
  const operationOf = (context: { commandName?: string }) => (context.commandName ?? '').replace(/Command$/, '');
  const stack = documentClient.middlewareStack as unknown as {
    add(mw: unknown, options: Record<string, unknown>): void;
    addRelativeTo(mw: unknown, options: Record<string, unknown>): void;
  };

  stack.add(
    (next: (args: Args) => Promise<Output>, context: { commandName?: string }) => async (args: Args) => {
      const operation = operationOf(context);
      if (faults.persistent.has(operation)) {
        faults.injected.persistent += 1;
        throw throttled(operation);
      }
      if (operation !== 'BatchWriteItem' || faults.unprocessed <= 0) return next(args);
      const requests = args.input.RequestItems as Record<string, unknown[]>;
      const [name, items] = Object.entries(requests)[0] as [string, unknown[]];
      if (items.length < 2) return next(args);
      faults.unprocessed -= 1;
      faults.injected.unprocessed += 1;
      const kept = items.slice(0, Math.ceil(items.length / 2));
      const left = items.slice(kept.length);
      const result = await next({ ...args, input: { ...args.input, RequestItems: { [name]: kept } } });
      const already = (result.output.UnprocessedItems as Record<string, unknown[]> | undefined)?.[name] ?? [];
      result.output.UnprocessedItems = { [name]: [...already, ...left] };
      return result;
    },
    { step: 'initialize', name: 'injectedFaults' },
  );
  stack.addRelativeTo(
    (next: (args: Args) => Promise<Output>, context: { commandName?: string }) => async (args: Args) => {
      const operation = operationOf(context);
      if ((faults.transient[operation] ?? 0) > 0) {
        faults.transient[operation] = (faults.transient[operation] ?? 0) - 1;
        faults.injected.transient += 1;
        throw throttled(operation);
      }
      return next(args);
    },
    { relation: 'after', toMiddleware: 'retryMiddleware', name: 'injectedThrottling' },
  );
  return { table: { ...table, documentClient }, faults };
}
