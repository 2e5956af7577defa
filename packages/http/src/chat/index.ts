import { OpenAPIHono } from '@hono/zod-openapi';
import { type ChatService, MemgateError } from '@memgate/core';
import { type AuthEnv, authenticate } from '../auth/index.ts';
import type { BaseDeps } from '../deps.ts';
import { areaErrorHandler, jsonBody, limitBody, refuseOtherMethods, throwOnInvalid } from '../errors/index.ts';
import { clientSignalOf } from '../request/index.ts';
import { eventStream, eventsOf, overlongMessage, SSE_HEADERS } from '../sse/index.ts';
import { generateRoute, replayRoute } from './routes.ts';

export interface ChatAreaDeps {
  service: ChatService;
  /** Silence after which a `: keep-alive` comment is sent (default 15 s; tests shorten it). */
  keepAliveMs?: number;
  /**
   * The longest one answer's stream may take (PROXY_TOTAL_TIMEOUT_MS). Past it the model call is aborted and the
   * stream ends with the error event and [DONE], rather than being cut by the function's own timeout with neither.
   */
  maxDurationMs?: number;
}

/**
 * The streaming chat's routes (spec 4.3), mounted at the root: paths are absolute. Each is one `createRoute`
 * definition (routes.ts) whose schemas the library validates, after the body limit, the token check and `jsonBody`.
 */
export function createChatApp(deps: BaseDeps & ChatAreaDeps): OpenAPIHono<AuthEnv> {
  const app = new OpenAPIHono<AuthEnv>({ defaultHook: throwOnInvalid });
  const { verifier, service, logger, keepAliveMs = 15_000, maxDurationMs = 280_000 } = deps;
  const auth = authenticate({ verifier, scope: 'chat' });
  const onError = (error: unknown) =>
    logger.error('chat stream failed', { error: error instanceof Error ? error.message : String(error) });

  app.openapi({ ...generateRoute, middleware: [limitBody(), auth, jsonBody()] }, async function generateStream(c) {
    // Errors up to here (validation, unknown chatId, another user's chat) are JSON; after it they are events.
    const turn = await service.open(c.var.principal, withoutNulls(c.req.valid('json')));
    const controller = new AbortController();
    const abort = () => controller.abort();
    clientSignalOf(c).addEventListener('abort', abort, { once: true });
    const events = withinTime(turn.events(controller.signal), controller, maxDurationMs);
    const body = eventStream({ events, abort, keepAliveMs, onError });
    return new Response(body, { status: 200, headers: SSE_HEADERS });
  });

  app.openapi(
    { ...replayRoute, middleware: [auth] },
    async function replayStream(c) {
      const events = await service.replay(c.var.principal, c.req.valid('param').replaySessionID);
      const body = eventStream({ events: eventsOf(events), abort: () => undefined, keepAliveMs, onError });
      return new Response(body, { status: 200, headers: SSE_HEADERS });
    },
    // The declared bound (at most 200 characters) also keeps an oversized id from reaching DynamoDB as a key: an id
    // that cannot exist is unknown (404), as one that does not.
    function unknownReplay(result): undefined {
      if (!result.success) throw new MemgateError('not_found', 'replay_not_found', 'unknown replaySessionID');
      return undefined;
    },
  );

  refuseOtherMethods(app);
  app.onError(areaErrorHandler('chat', deps.logger));
  return app;
}

/**
 * `events` cut at `maxDurationMs`: the work behind them is aborted, and the failure the stream reports is the time
 * limit (504's message), not whatever the aborted model call threw.
 */
async function* withinTime<T>(
  events: AsyncGenerator<T>,
  controller: AbortController,
  maxDurationMs: number,
): AsyncGenerator<T> {
  const limit = new MemgateError('upstream_timeout', 'upstream_timeout', overlongMessage(maxDurationMs));
  const deadline = setTimeout(() => controller.abort(limit), maxDurationMs);
  try {
    yield* events;
  } catch (error) {
    throw controller.signal.reason === limit ? limit : error;
  } finally {
    clearTimeout(deadline);
  }
}

/** `body` without the fields sent as null, which the schema takes as left out. */
function withoutNulls<T extends object>(body: T): { [K in keyof T]: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== null)) as {
    [K in keyof T]: Exclude<T[K], null>;
  };
}
