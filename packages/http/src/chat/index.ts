import { OpenAPIHono } from '@hono/zod-openapi';
import type { BaseDeps } from '../deps.ts';
import { areaErrorHandler, throwOnInvalid } from '../errors/index.ts';

// biome-ignore lint/complexity/noBannedTypes: filled in by the chat area
export type ChatAreaDeps = {};

/** The streaming chat's routes (spec 4.3), mounted at the root: paths are absolute. */
export function createChatApp(deps: BaseDeps & ChatAreaDeps): OpenAPIHono {
  const app = new OpenAPIHono({ defaultHook: throwOnInvalid });
  app.onError(areaErrorHandler('chat', deps.logger));
  return app;
}
