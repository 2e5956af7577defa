import { OpenAPIHono, type RouteConfig } from '@hono/zod-openapi';
import { type ChatModel, MemgateError, type Principal } from '@memgate/core';
import type { Context } from 'hono';
import { authenticate } from '../auth/middleware.ts';
import type { BaseDeps } from '../deps.ts';
import { areaErrorHandler, jsonBody, limitBody, type PrepareBody, rejectInvalid } from '../errors/index.ts';
import { clientSignalOf, withoutNodeBindings } from '../request/index.ts';
import { checkModelCanServe, type ProxyCall, requireDefaultModel } from './call.ts';
import { prepareMessages, type Switches } from './context.ts';
import type { ProxyAreaDeps } from './deps.ts';
import { forwardCompletion } from './forward.ts';
import { listDefaultModels, listTargetModels } from './models.ts';
import { serveDefaultResponses } from './responses/default-route.ts';
import { inputInSlices, type ResponsesRequest } from './responses/schema.ts';
import { serveTargetResponses } from './responses/target-route.ts';
import {
  defaultCompletionRoute,
  defaultModelsRoute,
  defaultResponsesRoute,
  targetCompletionRoute,
  targetModelsRoute,
  targetResponsesRoute,
} from './routes.ts';
import { messagesInSlices, type ProxyRequest } from './schema.ts';
import { createExchangeStore } from './store.ts';
import { PROXY_PREFIX, parseUpstreamPath, type UpstreamTarget, withTargetAsOneSegment } from './target.ts';

export { type BackgroundWork, createBackgroundWork, type ProxyAreaDeps, type ProxySettings } from './deps.ts';
export { proxyRoutes } from './routes.ts';
export { parseProxyPath } from './target.ts';

/** What the proxy's middleware leaves for its handlers: the caller, and on route A the target read from the path. */
export type ProxyEnv = { Variables: { principal: Principal; target: UpstreamTarget } };

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

/**
 * `route` as served: in the document as declared, but checked for its JSON body only. Its path parameters and switch
 * headers are strings that every request matching the path has (the handlers read the target from the raw path and
 * the switches from the headers), so their validators could refuse nothing: they cost two more middleware per
 * request, every header copied into an object and the path decoded again (~0.07 ms of CPU per request).
 */
function checkingBodyOnly<R extends RouteConfig>(
  app: OpenAPIHono<ProxyEnv>,
  route: R,
): Omit<R, 'request'> & { request: Omit<NonNullable<R['request']>, 'params' | 'headers'>; hide: true } {
  app.openAPIRegistry.registerPath(route);
  const { params: _params, headers: _headers, ...request } = route.request ?? {};
  return { ...route, request: request as Omit<NonNullable<R['request']>, 'params' | 'headers'>, hide: true };
}

/**
 * The completion proxy's routes (spec 4.2), mounted at the root: paths are absolute. Each is one `createRoute`
 * definition (routes.ts) whose schemas the library validates. Before the validator run the body limit, the token
 * check, route A's target (read from the raw path) and `jsonBody`; a long `messages` list is checked there in
 * slices (schema.ts), so the validator sees one message standing in for it.
 */
export function createProxyApp(deps: BaseDeps & ProxyAreaDeps): OpenAPIHono<ProxyEnv> {
  const app = new OpenAPIHono<ProxyEnv>({ defaultHook: rejectInvalid() });
  app.onError(areaErrorHandler('proxy', deps.logger));
  const exchanges = createExchangeStore(deps, deps.logger);
  const auth = authenticate({ verifier: deps.verifier, scope: 'proxy' });
  const onMessages = rejectInvalid({ listField: 'messages' });
  const onInput = rejectInvalid({ listField: 'input' });

  async function readTarget(c: Context<ProxyEnv>, next: () => Promise<void>) {
    c.set('target', parseUpstreamPath(rawPathOf(c.req.url)));
    await next();
  }
  /**
   * Back-pressure on captures: while more exchanges wait to be stored than the queue may hold (the store is slower
   * than the flood), a request that will capture waits for room before it is served, instead of memory growing.
   */
  async function roomForCapture(c: Context<ProxyEnv>, next: () => Promise<void>) {
    if (switchesOf(c).store) await exchanges.room();
    await next();
  }
  const posted = (onTarget: boolean, prepare?: PrepareBody) => [
    limitBody(),
    auth,
    roomForCapture,
    ...(onTarget ? [readTarget] : []),
    jsonBody(prepare ? { prepare } : {}),
  ];

  function callOf(c: Context<ProxyEnv>): ProxyCall {
    const principal = c.get('principal');
    const switches = switchesOf(c);
    return {
      deps,
      principal,
      switches,
      clientSignal: clientSignalOf(c),
      capture: (exchange, reply) => {
        if (switches.store) exchanges.capture(principal, exchange, reply);
      },
    };
  }

  async function complete(c: Context<ProxyEnv>, model: ChatModel, owner: 'operator' | 'caller', body: ProxyRequest) {
    const call = callOf(c);
    const request = { ...body, messages: messagesInSlices.itemsOf(c) ?? body.messages };
    if (owner === 'operator') {
      requireDefaultModel(request.model, deps.defaultModelId);
      checkModelCanServe(model, request);
    }
    const prepared = await prepareMessages(deps, deps.logger, call.principal, request.messages, call.switches);
    return forwardCompletion({
      model,
      request: { ...request, messages: prepared.messages },
      headers: prepared.headers,
      upstreamOwner: owner,
      clientSignal: call.clientSignal,
      keepAliveMs: deps.settings.keepAliveMs,
      maxDurationMs: deps.settings.totalTimeoutMs,
      ...(call.switches.store ? { onReply: (reply: string) => call.capture(prepared, reply) } : {}),
    });
  }

  /** The validated Responses request, with its whole `input` when that was checked in slices. */
  function responsesRequestOf(c: Context<ProxyEnv, string, { out: { json: ResponsesRequest } }>): ResponsesRequest {
    const request = c.req.valid('json');
    return { ...request, input: inputInSlices.itemsOf(c) ?? request.input };
  }

  app.openapi(
    { ...checkingBodyOnly(app, defaultCompletionRoute), middleware: posted(false, messagesInSlices.prepare) },
    (c) => complete(c, deps.defaultModel, 'operator', c.req.valid('json')),
    onMessages,
  );
  app.openapi(
    { ...checkingBodyOnly(app, targetCompletionRoute), middleware: posted(true, messagesInSlices.prepare) },
    (c) => {
      const { baseUrl, apiKey } = c.var.target;
      return complete(c, deps.upstreamFor(baseUrl, apiKey), 'caller', c.req.valid('json'));
    },
    onMessages,
  );
  app.openapi(
    { ...checkingBodyOnly(app, defaultResponsesRoute), middleware: posted(false, inputInSlices.prepare) },
    (c) => serveDefaultResponses(callOf(c), responsesRequestOf(c)),
    onInput,
  );
  app.openapi(
    { ...checkingBodyOnly(app, targetResponsesRoute), middleware: posted(true, inputInSlices.prepare) },
    (c) => {
      const { baseUrl, apiKey } = c.var.target;
      return serveTargetResponses(callOf(c), deps.upstreamFor(baseUrl, apiKey), responsesRequestOf(c));
    },
    onInput,
  );
  app.openapi({ ...defaultModelsRoute, middleware: [auth] }, (c) =>
    c.json(listDefaultModels(deps.defaultModelId), 200),
  );
  app.openapi({ ...checkingBodyOnly(app, targetModelsRoute), middleware: [auth, readTarget] }, (c) => {
    const { baseUrl, apiKey } = c.var.target;
    return listTargetModels(callOf(c), deps.upstreamFor(baseUrl, apiKey));
  });

  // A route A path whose base URL spans segments: served by route A's routes in the one-segment form (routes.ts).
  // Anything else under the prefix (another endpoint, or a method the endpoint does not take): a 404, before any
  // token check.
  app.all(`${PROXY_PREFIX}*`, function redispatchOrRefuse(c) {
    const url = c.req.url;
    const rawPath = rawPathOf(url);
    const oneSegment = withTargetAsOneSegment(rawPath);
    if (oneSegment !== undefined) {
      const start = url.indexOf(rawPath, url.indexOf('//') + 2);
      const { method, headers, body, signal } = c.req.raw;
      const init = { method, headers, body, signal, duplex: 'half' as const };
      // The new request reads its own body and signal (taken from this one's above), not the Node request's.
      const request = new Request(url.slice(0, start) + oneSegment + url.slice(start + rawPath.length), init);
      return app.fetch(request, withoutNodeBindings(c.env));
    }
    throw new MemgateError(
      'not_found',
      'not_found',
      'no such proxy route; use POST …/chat/completions, POST …/responses or GET …/models',
    );
  });
  return app;
}
