import type { OpenAPIHono } from '@hono/zod-openapi';
import { MemgateError } from '@memgate/core';
import type { Context, Env } from 'hono';

/**
 * A route's path asked with a method it does not take is a 405 naming the methods it takes (`Allow`, RFC 9110), in
 * the area's envelope (the app's onError), before any token check: the path exists, only the method is wrong (a 404
 * would say there is no such route). Call after the routes are declared: a request with a right method never
 * reaches it. A GET route also answers HEAD (Hono serves HEAD with the GET handler).
 */
export function refuseOtherMethods<E extends Env>(app: OpenAPIHono<E>): void {
  const methodsByPath = new Map<string, string[]>();
  for (const definition of app.openAPIRegistry.definitions) {
    if (definition.type !== 'route') continue;
    const { path, method } = definition.route;
    const methods = methodsByPath.get(path) ?? [];
    methods.push(...methodsServed(method));
    methodsByPath.set(path, methods);
  }
  for (const [path, methods] of methodsByPath) {
    const allow = methods.join(', ');
    // The OpenAPI path's parameters (`{name}`) as Hono matches them (`:name`).
    app.all(path.replaceAll(/\/{(.+?)}/g, '/:$1'), function refuseMethod(c) {
      throw methodNotAllowed(c, allow, `on ${path}`);
    });
  }
}

/** The methods a route of `method` answers: a GET route answers HEAD too (Hono serves it with the GET handler). */
export function methodsServed(method: string): string[] {
  const upper = method.toUpperCase();
  return upper === 'GET' ? ['GET', 'HEAD'] : [upper];
}

/** The 405 to throw for `c`'s method, `where` naming the path in its message; sets `Allow` to `allow` on `c`. */
export function methodNotAllowed(c: Context, allow: string, where: string): MemgateError {
  c.header('Allow', allow);
  return new MemgateError(
    'method_not_allowed',
    'method_not_allowed',
    `${c.req.method} is not allowed ${where}; use ${allow}`,
  );
}
