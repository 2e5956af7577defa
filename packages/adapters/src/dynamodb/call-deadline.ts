import { type DynamoDBDocumentClient, DynamoDBDocumentClientCommand } from '@aws-sdk/lib-dynamodb';

/** The error of a DynamoDB call that outlived its deadline: a clean 500 for the caller, a clear line in the log. */
export class DynamoDeadlineError extends Error {
  constructor(operation: string, ms: number) {
    super(`DynamoDB ${operation} did not complete within ${ms} ms`);
    this.name = 'DynamoDeadlineError';
  }
}

/** Where a call's deadline signal rides in the arguments that its middleware handler passes on. */
const CALL_SIGNAL = Symbol('dynamoCallSignal');

interface CallArguments {
  input: unknown;
  [CALL_SIGNAL]: AbortSignal;
}
type Handler = (args: CallArguments) => Promise<{ output: unknown }>;
interface Command {
  input: unknown;
  constructor: { name: string };
  resolveMiddleware(
    stack: unknown,
    config: unknown,
    options: undefined,
  ): (args?: unknown) => Promise<{ output: unknown }>;
}
interface HttpHandler {
  handle(request: object, options?: { abortSignal?: AbortSignal }): Promise<unknown>;
}
type SendOptions = { abortSignal?: AbortSignal };
type Send = DynamoDBDocumentClient['send'];

/**
 * The middleware handler of a command class, resolved once and reused by every call of that class. The SDK resolves
 * the whole stack for each call otherwise: its own cache (`cacheMiddleware`) serves only calls without options, and
 * the document client refuses it, because lib-dynamodb's handler is bound to the command it was resolved for.
 */
function resolveHandler(client: DynamoDBDocumentClient, command: Command): Handler {
  if (command instanceof DynamoDBDocumentClientCommand) {
    // lib-dynamodb's handler sends its command's `clientCommand` (read at each call, synchronously) through the
    // low-level stack with its marshalling middleware: a command of our own, whose clientCommand is each call's
    // (its own input is empty, so that the handler keeps no caller's input alive).
    const template = new (command.constructor as new (input: unknown) => Command & { clientCommand: unknown })({});
    const handler = template.resolveMiddleware(client.middlewareStack, client.config, undefined);
    return function sendDocumentCommand(args) {
      template.clientCommand = args;
      return handler();
    };
  }
  return command.resolveMiddleware(client.middlewareStack, client.config, undefined);
}

/**
 * Every call through `client` ends at its deadline (`totalTimeoutMs`, retries and their pauses included), with a
 * DynamoDeadlineError. The deadline's signal goes with the call's arguments to each attempt's HTTP request, which it
 * destroys in flight, or refuses to send once fired (no retry after the deadline: the SDK does not retry an abort).
 * The handler stays shared: nothing of one call is in it. A caller's own options (an abort signal) take the SDK's
 * per-call path with both signals, as before. Timers are the global setTimeout (not AbortSignal.timeout) so that
 * tests can drive them with fake timers.
 */
export function withCallDeadline(client: DynamoDBDocumentClient, totalTimeoutMs: number): void {
  const attemptSignals = new WeakMap<object, AbortSignal>();
  client.middlewareStack.add(
    (next) =>
      function bindAttemptToDeadline(args) {
        const signal = (args as Partial<CallArguments>)[CALL_SIGNAL];
        if (signal) attemptSignals.set((args as { request: object }).request, signal);
        return next(args);
      },
    // After the deserializer, the last before the HTTP handler: each attempt's signed request.
    { step: 'deserialize', priority: 'low', name: 'callDeadlineMiddleware' },
  );
  const http = client.config.requestHandler as HttpHandler;
  const handle = http.handle.bind(http);
  http.handle = function handleWithinDeadline(request, options) {
    const abortSignal = attemptSignals.get(request);
    return handle(request, abortSignal ? { ...options, abortSignal } : options);
  };

  const send = client.send.bind(client) as (command: unknown, options?: SendOptions) => Promise<unknown>;
  const handlers = new Map<unknown, Handler>();
  const operationOf = (command: Command) => command.constructor.name.replace(/Command$/, '');

  function sendWithinDeadline(command: Command, options?: SendOptions): Promise<unknown> {
    if (options !== undefined) return sendWithCallerOptions(command, options);
    return new Promise((resolve, reject) => {
      let handler = handlers.get(command.constructor);
      if (!handler) {
        handler = resolveHandler(client, command);
        handlers.set(command.constructor, handler);
      }
      const deadline = new AbortController();
      const timer = setTimeout(() => {
        reject(new DynamoDeadlineError(operationOf(command), totalTimeoutMs));
        deadline.abort();
      }, totalTimeoutMs);
      handler({ input: command.input, [CALL_SIGNAL]: deadline.signal }).then(
        (result) => {
          clearTimeout(timer);
          resolve(result.output);
        },
        (error: unknown) => {
          clearTimeout(timer);
          reject(error);
        },
      );
    });
  }

  async function sendWithCallerOptions(command: Command, options: SendOptions) {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), totalTimeoutMs);
    const signal = options.abortSignal ? AbortSignal.any([options.abortSignal, deadline.signal]) : deadline.signal;
    try {
      return await send(command, { ...options, abortSignal: signal });
    } catch (error) {
      if (deadline.signal.aborted && !options.abortSignal?.aborted) {
        throw new DynamoDeadlineError(operationOf(command), totalTimeoutMs);
      }
      throw error;
    } finally {
      clearTimeout(timer);
    }
  }

  client.send = sendWithinDeadline as unknown as Send;
}
