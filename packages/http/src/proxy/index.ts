import { OpenAPIHono } from '@hono/zod-openapi';
import { MemgateError } from '@memgate/core';
import type { Context } from 'hono';
import { type AuthEnv, authenticate } from '../auth/middleware.ts';
import type { BaseDeps } from '../deps.ts';
import { areaErrorHandler, limitBody, readJsonObject, throwOnInvalid } from '../errors/index.ts';
import { checkModelCanServe, type ProxyCall, requireDefaultModel } from './call.ts';
import { prepareMessages, type Switches } from './context.ts';
import type { ProxyAreaDeps } from './deps.ts';
import { forwardCompletion } from './forward.ts';
import { listDefaultModels, listTargetModels } from './models.ts';
import { registerProxyDocs } from './openapi.ts';
import { serveDefaultResponses } from './responses/default-route.ts';
import { parseResponsesRequest } from './responses/schema.ts';
import { serveTargetResponses } from './responses/target-route.ts';
import { parseRequest } from './schema.ts';
import { createExchangeStore } from './store.ts';
import { endpointOf, PROXY_ENDPOINTS, PROXY_PREFIX, parseProxyPath } from './target.ts';

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

  app.use(`${PROXY_PREFIX}*`, async function requireProxyEndpoint(c, next) {
    const endpoint = endpointOf(rawPathOf(c.req.url));
    if (!endpoint || PROXY_ENDPOINTS[endpoint] !== c.req.method) {
      throw new MemgateError(
        'not_found',
        'not_found',
        'no such proxy route; use POST …/chat/completions, POST …/responses or GET …/models',
      );
    }
    await next();
  });
  app.use(`${PROXY_PREFIX}*`, limitBody());
  app.use(`${PROXY_PREFIX}*`, authenticate({ verifier: deps.verifier, scope: 'proxy' }));

  function callOf(c: Context<AuthEnv>): ProxyCall {
    const principal = c.get('principal');
    const switches = switchesOf(c);
    return {
      deps,
      principal,
      switches,
      clientSignal: c.req.raw.signal,
      capture: (exchange, reply) => {
        if (switches.store) storeExchange(principal, exchange, reply);
      },
    };
  }

  app.get(`${PROXY_PREFIX}*`, async function proxyModels(c) {
    const target = parseProxyPath(rawPathOf(c.req.url));
    if (target.kind === 'default') return listDefaultModels(deps.defaultModelId);
    return listTargetModels(callOf(c), deps.upstreamFor(target.baseUrl, target.apiKey));
  });

  app.post(`${PROXY_PREFIX}*`, async function proxyPost(c) {
    const rawPath = rawPathOf(c.req.url);
    const target = parseProxyPath(rawPath);
    const body = await readJsonObject(c);
    const call = callOf(c);
    if (endpointOf(rawPath) === 'responses') {
      const request = await parseResponsesRequest(body);
      if (target.kind === 'default') return serveDefaultResponses(call, request);
      return serveTargetResponses(call, deps.upstreamFor(target.baseUrl, target.apiKey), request, body);
    }
    const request = await parseRequest(body);
    let model = deps.defaultModel;
    if (target.kind === 'default') {
      requireDefaultModel(request.model, deps.defaultModelId);
      checkModelCanServe(model, request);
    } else {
      model = deps.upstreamFor(target.baseUrl, target.apiKey);
    }
    const prepared = await prepareMessages(deps, deps.logger, call.principal, request.messages, call.switches);
    return forwardCompletion({
      model,
      request: { ...request, messages: prepared.messages },
      headers: prepared.headers,
      upstreamOwner: target.kind === 'default' ? 'operator' : 'caller',
      clientSignal: call.clientSignal,
      keepAliveMs: deps.settings.keepAliveMs,
      maxDurationMs: deps.settings.totalTimeoutMs,
      ...(call.switches.store ? { onReply: (reply: string) => call.capture(prepared, reply) } : {}),
    });
  });
  // The principal variable is internal to this area; callers mount it as a plain app.
  return app as unknown as OpenAPIHono;
}
