import { OpenAPIHono } from '@hono/zod-openapi';
import { MemgateError } from '@memgate/core';
import type { Context } from 'hono';
import { type AuthEnv, authenticate } from '../auth/middleware.ts';
import type { BaseDeps } from '../deps.ts';
import { areaErrorHandler, limitBody, readJsonObject, throwOnInvalid } from '../errors/index.ts';
import { prepareMessages, type Switches } from './context.ts';
import type { ProxyAreaDeps } from './deps.ts';
import { forwardCompletion } from './forward.ts';
import { registerProxyDocs } from './openapi.ts';
import { parseRequest } from './schema.ts';
import { createExchangeStore } from './store.ts';
import { COMPLETIONS_SUFFIX, PROXY_PREFIX, parseProxyPath } from './target.ts';

export { type BackgroundWork, createBackgroundWork, type ProxyAreaDeps, type ProxySettings } from './deps.ts';
export { parseProxyPath } from './target.ts';

function switchesOf(c: Context): Switches {
  const off = (name: string) => c.req.header(name)?.trim().toLowerCase() === 'off';
  return { filter: !off('x-memgate-filter'), context: !off('x-memgate-context'), store: !off('x-memgate-store') };
}

/** The raw path: c.req.path may be decoded, and route A's base URL needs its original form. */
function rawPathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const end = url.indexOf('?', start);
  return end < 0 ? url.slice(start) : url.slice(start, end);
}

/** The completion proxy's routes (spec 4.2), mounted at the root: paths are absolute. */
export function createProxyApp(deps: BaseDeps & ProxyAreaDeps): OpenAPIHono {
  const app = new OpenAPIHono<AuthEnv>({ defaultHook: throwOnInvalid });
  app.onError(areaErrorHandler('proxy', deps.logger));
  registerProxyDocs(app);
  const storeExchange = createExchangeStore(deps, deps.logger);

  app.use(`${PROXY_PREFIX}*`, async function requireCompletionsPath(c, next) {
    if (!rawPathOf(c.req.url).endsWith(COMPLETIONS_SUFFIX) || c.req.method !== 'POST') {
      throw new MemgateError('not_found', 'not_found', 'no such proxy route; use POST …/chat/completions');
    }
    await next();
  });
  app.use(`${PROXY_PREFIX}*`, limitBody());
  app.use(`${PROXY_PREFIX}*`, authenticate({ verifier: deps.verifier, scope: 'proxy' }));

  app.post(`${PROXY_PREFIX}*`, async function proxyCompletion(c) {
    const target = parseProxyPath(rawPathOf(c.req.url));
    const request = parseRequest(await readJsonObject(c));
    let model = deps.defaultModel;
    if (target.kind === 'default') {
      if (request.model !== deps.defaultModelId) {
        throw new MemgateError(
          'validation',
          'invalid_request',
          `unknown model; this route serves model "${deps.defaultModelId}"`,
          {
            field: 'model',
          },
        );
      }
    } else {
      model = deps.upstreamFor(target.baseUrl, target.apiKey);
    }
    const principal = c.get('principal');
    const switches = switchesOf(c);
    const prepared = await prepareMessages(deps, deps.logger, principal, request.messages, switches);
    return forwardCompletion({
      model,
      request: { ...request, messages: prepared.messages },
      headers: prepared.headers,
      clientSignal: c.req.raw.signal,
      keepAliveMs: deps.settings.keepAliveMs,
      ...(switches.store ? { onReply: (reply: string) => storeExchange(principal, prepared.question, reply) } : {}),
    });
  });
  // The principal variable is internal to this area; callers mount it as a plain app.
  return app as unknown as OpenAPIHono;
}
