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
