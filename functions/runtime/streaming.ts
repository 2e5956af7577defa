import type { Hono } from 'hono';
import { streamHandle } from 'hono/aws-lambda';

/** The Lambda runtime's global for RESPONSE_STREAM handlers (what hono's streamHandle calls). */
declare const awslambda: { streamifyResponse<T>(handler: T): T };

type StreamingHandler = (event: unknown, responseStream: unknown, context: unknown) => Promise<unknown>;

/**
 * A RESPONSE_STREAM handler for `app` that finishes the app's after-response work (e.g. storing the proxy's
 * captured exchange) before the invocation ends. The response stream is closed first, so the caller is not kept
 * waiting; but Lambda freezes the instance once the handler's promise settles, and a write still in flight then
 * is frozen or lost. One invocation at a time runs per instance, so draining the instance's background work is
 * draining this invocation's.
 */
export function streamingHandler(app: Hono, afterResponse: { idle(): Promise<void> }): StreamingHandler {
  const respond = streamHandle(app) as unknown as StreamingHandler;
  return awslambda.streamifyResponse(async function respondThenFinish(event, responseStream, context) {
    try {
      return await respond(event, responseStream, context);
    } finally {
      await afterResponse.idle();
    }
  });
}
