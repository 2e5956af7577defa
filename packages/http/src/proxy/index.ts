import { OpenAPIHono } from '@hono/zod-openapi';
import type { BaseDeps } from '../deps.ts';
import { areaErrorHandler, throwOnInvalid } from '../errors/index.ts';

// biome-ignore lint/complexity/noBannedTypes: filled in by the proxy area
export type ProxyAreaDeps = {};

/** The completion proxy's routes (spec 4.2), mounted at the root: paths are absolute. */
export function createProxyApp(deps: BaseDeps & ProxyAreaDeps): OpenAPIHono {
  const app = new OpenAPIHono({ defaultHook: throwOnInvalid });
  app.onError(areaErrorHandler('proxy', deps.logger));
  return app;
}
