import { OpenAPIHono } from '@hono/zod-openapi';
import type { Hono } from 'hono';
import { type ChatAreaDeps, createChatApp } from './chat/index.ts';
import { type ContextAreaDeps, createContextApp } from './context/index.ts';
import type { BaseDeps } from './deps.ts';
import { registerDocs } from './docs/index.ts';
import { notFoundHandler, pathErrorHandler, throwOnInvalid } from './errors/index.ts';
import { requestLog } from './observability/index.ts';
import { createProxyApp, type ProxyAreaDeps } from './proxy/index.ts';

export interface AppDeps extends BaseDeps {
  context: ContextAreaDeps;
  proxy: ProxyAreaDeps;
  chat: ChatAreaDeps;
  /** The `/docs` viewer (the local server passes Scalar); a plain page rendered from the document otherwise. */
  docs?: Hono;
}

/** The whole service as one app (local server, tests). Lambdas build one area's app each. */
export function createApp(deps: AppDeps): OpenAPIHono {
  const base: BaseDeps = { verifier: deps.verifier, logger: deps.logger };
  const app = new OpenAPIHono({ defaultHook: throwOnInvalid });
  app.use(requestLog(deps.logger));
  app.get('/health', (c) => c.json({ status: 'ok' }));
  app.route('/', createContextApp({ ...base, ...deps.context }));
  app.route('/', createProxyApp({ ...base, ...deps.proxy }));
  app.route('/', createChatApp({ ...base, ...deps.chat }));
  registerDocs(app, deps.docs);
  app.notFound(notFoundHandler());
  app.onError(pathErrorHandler(deps.logger));
  return app;
}
