import type { Context } from 'hono';
import { loggedRequestId } from '../observability/index.ts';
import { nodeBindingsOf } from '../request/index.ts';
import { type ForwardOptions, forwardSse } from './sse.ts';
import { forwardSseToNode } from './sse-node.ts';

/** Answers with a forwarded SSE stream: status 200, `headers`, the bytes forwardSse would send. */
export type SseResponder = (options: ForwardOptions, headers: Record<string, string>) => Response;

/** The web form, wherever the request is not the Node server's (a Lambda, a request built in-process). */
export const webSse: SseResponder = (options, headers) => new Response(forwardSse(options), { status: 200, headers });

/** The header by which Hono's Node adapter knows that a handler wrote the Node response itself. */
const ALREADY_SENT = 'x-hono-already-sent';

/**
 * How `c` answers with a forwarded stream: on the local server written to the Node response as it arrives
 * (sse-node.ts), elsewhere a Response over a web stream. The Node form sends the request log's `x-request-id`
 * itself (unless an upstream's forwarded id is there, as the log would leave it), since the log can only put it on
 * a Response; the Response it returns only tells the log the status and the adapter that all was written.
 */
export function sseResponderOf(c: Context): SseResponder {
  const node = nodeBindingsOf(c);
  if (!node) return webSse;
  return (options, headers) => {
    const requestId = headers['x-request-id'] ?? loggedRequestId(c);
    forwardSseToNode(options, node.outgoing, requestId ? { ...headers, 'x-request-id': requestId } : headers);
    return new Response(null, { status: 200, headers: { [ALREADY_SENT]: 'true' } });
  };
}
