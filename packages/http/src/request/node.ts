import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Context } from 'hono';

/** The Node request and response behind a request that the local server (Hono's Node adapter) serves. */
export interface NodeBindings {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

/**
 * The Node request and response of `c` when Hono's Node adapter serves it (its `c.env`), else undefined (a Lambda,
 * `app.request` in tests, a request built in-process). Reading these instead of `c.req.raw` spares the adapter
 * building a whole WHATWG Request, and a web stream around the body, for every request (bench/OVER-BUDGET.md).
 */
export function nodeBindingsOf(c: Context): NodeBindings | undefined {
  const env = c.env as Partial<NodeBindings> | undefined;
  const incoming = env?.incoming;
  const outgoing = env?.outgoing;
  if (typeof incoming?.on !== 'function' || typeof outgoing?.on !== 'function') return undefined;
  return { incoming, outgoing };
}

/**
 * A request header as `c.req.header(name)` reads it (`name` in lower case; repeated fields joined with ", "), from
 * the Node request's raw header list when there is one: Hono's Node adapter otherwise builds a WHATWG Headers of
 * every field, each validated again, on the first header read (~6 KiB a request on the proxy's path).
 */
export function requestHeader(c: Context, name: string): string | undefined {
  const incoming = nodeBindingsOf(c)?.incoming;
  if (!incoming) return c.req.header(name);
  const raw = incoming.rawHeaders;
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const field = raw[i] as string;
    if (field.length !== name.length || field.toLowerCase() !== name) continue;
    value = value === undefined ? (raw[i + 1] as string) : `${value}, ${raw[i + 1]}`;
  }
  return value;
}

/**
 * `env` without the Node request and response: for a request built from this one and served in-process, whose
 * body and signal are its own Request's, not the Node request's.
 */
export function withoutNodeBindings(env: unknown): unknown {
  if (env === undefined || env === null || typeof env !== 'object') return env;
  const { incoming: _incoming, outgoing: _outgoing, ...rest } = env as Record<string, unknown>;
  return rest;
}

const signals = new WeakMap<Request, AbortSignal>();

/**
 * Aborted when the client goes away before the response is finished, as the Node adapter's own `Request.signal`
 * is (same reasons), without building that Request. Elsewhere, the request's own signal.
 */
export function clientSignalOf(c: Context): AbortSignal {
  const node = nodeBindingsOf(c);
  if (!node) return c.req.raw.signal;
  const known = signals.get(c.req.raw);
  if (known) return known;
  const { incoming, outgoing } = node;
  const controller = new AbortController();
  const onClose = () => {
    if (incoming.errored) controller.abort(incoming.errored.toString());
    else if (!outgoing.writableFinished) controller.abort('Client connection prematurely closed.');
  };
  // Gone already (while the body was read, say): the adapter's listener fired before anyone asked.
  if (outgoing.closed) onClose();
  else outgoing.once('close', onClose);
  signals.set(c.req.raw, controller.signal);
  return controller.signal;
}
