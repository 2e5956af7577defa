import { OpenAPIHono } from '@hono/zod-openapi';
import type { ContextStore } from '@memgate/core';
import type { BaseDeps } from '../deps.ts';
import { areaErrorHandler, throwOnInvalid } from '../errors/index.ts';

export interface ContextAreaDeps {
  store: ContextStore;
}

/** The context store's routes (spec 4.1), mounted at the root: paths are absolute. */
export function createContextApp(deps: BaseDeps & ContextAreaDeps): OpenAPIHono {
  const app = new OpenAPIHono({ defaultHook: throwOnInvalid });
  app.onError(areaErrorHandler('context', deps.logger));
  return app;
}
