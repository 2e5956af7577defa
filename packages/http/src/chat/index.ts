import { OpenAPIHono } from '@hono/zod-openapi';
import { type ChatService, MemgateError } from '@memgate/core';
import { type AuthEnv, authenticate } from '../auth/index.ts';
import type { BaseDeps } from '../deps.ts';
import { areaErrorHandler, fromZodError, limitBody, readJsonObject, throwOnInvalid } from '../errors/index.ts';
import { eventStream, eventsOf, SSE_HEADERS } from '../sse/index.ts';
import { generateRoute, replayRoute } from './routes.ts';
import { ChatBody, ReplayParams } from './schemas.ts';

export interface ChatAreaDeps {
  service: ChatService;
  /** Silence after which a `: keep-alive` comment is sent (default 15 s; tests shorten it). */
  keepAliveMs?: number;
}

/** The streaming chat's routes (spec 4.3), mounted at the root: paths are absolute. */
export function createChatApp(deps: BaseDeps & ChatAreaDeps): OpenAPIHono {
  const app = new OpenAPIHono<AuthEnv>({ defaultHook: throwOnInvalid });
  const { verifier, service, logger, keepAliveMs = 15_000 } = deps;
  app.openAPIRegistry.registerPath(generateRoute);
  app.openAPIRegistry.registerPath(replayRoute);
  const auth = authenticate({ verifier, scope: 'chat' });
  const onError = (error: unknown) =>
    logger.error('chat stream failed', { error: error instanceof Error ? error.message : String(error) });

  app.post(generateRoute.path, limitBody(), auth, async function generateStream(c) {
    const parsed = ChatBody.safeParse(await readJsonObject(c));
    if (!parsed.success) throw fromZodError(parsed.error);
    // Errors up to here (validation, unknown chatId, another user's chat) are JSON; after it they are events.
    const turn = await service.open(c.var.principal, parsed.data);
    const controller = new AbortController();
    const abort = () => controller.abort();
    c.req.raw.signal.addEventListener('abort', abort, { once: true });
    const body = eventStream({ events: turn.events(controller.signal), abort, keepAliveMs, onError });
    return new Response(body, { status: 200, headers: SSE_HEADERS });
  });

  app.get('/api/v1/chat/replay/:replaySessionID', auth, async function replayStream(c) {
    // The declared bound (at most 200 characters) also keeps an oversized id from reaching DynamoDB as a key.
    const params = ReplayParams.safeParse({ replaySessionID: c.req.param('replaySessionID') });
    if (!params.success) throw new MemgateError('not_found', 'replay_not_found', 'unknown replaySessionID');
    const events = await service.replay(c.var.principal, params.data.replaySessionID);
    const body = eventStream({ events: eventsOf(events), abort: () => undefined, keepAliveMs, onError });
    return new Response(body, { status: 200, headers: SSE_HEADERS });
  });

  app.onError(areaErrorHandler('chat', deps.logger));
  return app as unknown as OpenAPIHono;
}
