import { bufferedBodyOf } from '@memgate/http/request/buffered';
import type { Hono } from 'hono';
import { streamHandle } from 'hono/aws-lambda';

/** The Lambda runtime's global for RESPONSE_STREAM handlers (what hono's streamHandle calls). */
declare const awslambda: { streamifyResponse<T>(handler: T): T };

type StreamingHandler = (event: unknown, responseStream: unknown, context: unknown) => Promise<unknown>;

/** What hono's streamHandle reads of a response: its status, its headers and, through a reader, its body. */
interface StreamedResponse {
  status: number;
  headers: Headers;
  body: { getReader(): { read(): Promise<{ done: boolean; value?: Uint8Array }> } } | null;
}

/**
 * `response` as streamHandle reads it. A body the app answered whole (JSON, an error) is handed to it through a
 * one-shot reader over its bytes instead of a WHATWG stream over them: the first `ReadableStream` of a cold start
 * loads Node's web streams (~4 ms of CPU), for bytes that are already in memory. A streamed body (SSE) stays as it is.
 */
function forStreamHandle(response: Response): Response | StreamedResponse {
  const bytes = bufferedBodyOf(response as unknown as Request);
  if (bytes === undefined) return response;
  let sent = false;
  return {
    status: response.status,
    headers: response.headers,
    // No body as hono's own null body: it then writes '' so that the runtime sends the status and headers.
    body:
      bytes.length === 0
        ? null
        : {
            getReader: () => ({
              read: async () => {
                if (sent) return { done: true };
                sent = true;
                return { done: false, value: bytes };
              },
            }),
          },
  };
}

/**
 * A RESPONSE_STREAM handler for `app` that finishes the app's after-response work (e.g. storing the proxy's
 * captured exchange) before the invocation ends. The response stream is closed first, so the caller is not kept
 * waiting; but Lambda freezes the instance once the handler's promise settles, and a write still in flight then
 * is frozen or lost. One invocation at a time runs per instance, so draining the instance's background work is
 * draining this invocation's.
 */
export function streamingHandler(app: Hono, afterResponse?: { idle(): Promise<void> }): StreamingHandler {
  const served = {
    fetch: async (request: Request, env: unknown) => forStreamHandle(await app.fetch(request, env)),
  };
  const respond = streamHandle(served as unknown as Hono) as unknown as StreamingHandler;
  return awslambda.streamifyResponse(async function respondThenFinish(event, responseStream, context) {
    try {
      return await respond(event, responseStream, context);
    } finally {
      await afterResponse?.idle();
    }
  });
}
