import { OpenAPIHono } from '@hono/zod-openapi';
import { MemgateError } from '@memgate/core';
import type { AuthEnv } from '../auth/index.ts';
import { areaErrorHandler, throwOnInvalid } from '../errors/index.ts';
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

/**
 * A route's path with a method it does not take is a 405 naming the methods it takes (`Allow`, RFC 9110), in the
 * area's envelope, before any token check: the path exists, only the method is wrong (a 404 said there was no such
 * route). Registered after the routes, so a request with the right method never reaches it. A GET route also answers
 * HEAD (Hono serves HEAD with the GET handler).
 */
function refuseOtherMethods(app: OpenAPIHono<AuthEnv>): void {
  const methodsByPath = new Map<string, string[]>();
  for (const definition of app.openAPIRegistry.definitions) {
    if (definition.type !== 'route') continue;
    const { path, method } = definition.route;
    const methods = methodsByPath.get(path) ?? [];
    methods.push(...(method === 'get' ? ['GET', 'HEAD'] : [method.toUpperCase()]));
    methodsByPath.set(path, methods);
  }
  for (const [path, methods] of methodsByPath) {
    const allow = methods.join(', ');
    app.all(path, function refuseMethod(c) {
      c.header('Allow', allow);
      throw new MemgateError(
        'method_not_allowed',
        'method_not_allowed',
        `${c.req.method} is not allowed on ${path}; use ${allow}`,
      );
    });
  }
}
