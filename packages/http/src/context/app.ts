import { OpenAPIHono } from '@hono/zod-openapi';
import type { AuthEnv } from '../auth/index.ts';
import { areaErrorHandler, refuseOtherMethods, throwOnInvalid } from '../errors/index.ts';
import type { ContextRouteDeps, ServeContextRoute } from './common.ts';

/**
 * An app serving some of the context store's routes (spec 4.1), mounted at the root: paths are absolute. Each route is
 * one `createRoute` definition: the library validates the body or query against its schema and the OpenAPI document is
 * generated from the same definitions. A Lambda function serves the one route API Gateway sends it, and imports only
 * that route's module.
 */
export function createContextRoutesApp(
  deps: ContextRouteDeps,
  routes: readonly ServeContextRoute[],
): OpenAPIHono<AuthEnv> {
  const app = new OpenAPIHono<AuthEnv>({ defaultHook: throwOnInvalid });
  for (const serve of routes) serve(app, deps);
  refuseOtherMethods(app);
  app.onError(areaErrorHandler('context', deps.logger));
  return app;
}
