import { OpenAPIHono } from '@hono/zod-openapi';
import { type ChatModel, MemgateError } from '@memgate/core';
import type { Context } from 'hono';
import type { StatusCode } from 'hono/utils/http-status';
import type { BaseDeps } from '../deps.ts';
import { areaErrorHandler, methodNotAllowed, methodsServed, rejectInvalid } from '../errors/index.ts';
import { clientSignalOf, withoutNodeBindings } from '../request/index.ts';
import { checkModelCanServe, type ProxyCall, requireDefaultModel } from './call.ts';
import { prepareMessages } from './context.ts';
import type { ProxyAreaDeps } from './deps.ts';
import { forwardCompletion } from './forward.ts';
import { listDefaultModels, listTargetModels, retrieveDefaultModel, retrieveTargetModel } from './models.ts';
import { serveDefaultResponses } from './responses/default-route.ts';
import { inputInSlices, type ResponsesRequest, ResponsesRequestSchema } from './responses/schema.ts';
import { serveTargetResponses } from './responses/target-route.ts';
import {
  defaultCompletionRoute,
  defaultModelRoute,
  defaultModelsRoute,
  defaultResponsesRoute,
  targetCompletionRoute,
  targetModelRoute,
  targetModelsRoute,
  targetResponsesRoute,
} from './routes.ts';
import { messagesInSlices, type ProxyRequest, ProxyRequestSchema } from './schema.ts';
import { sseResponderOf } from './sse-response.ts';
import { type ProxyEnv, proxyRouter, rawPathOf, switchesOf } from './step.ts';
import { createExchangeStore } from './store.ts';
import {
  endpointOf,
  modelPathOf,
  PROXY_ENDPOINTS,
  PROXY_PREFIX,
  parseUpstreamPath,
  withTargetAsOneSegment,
} from './target.ts';

/** nginx's status for a request whose client closed the connection before the answer (no standard one exists). */
const CLIENT_CLOSED_REQUEST = 499;

export { type BackgroundWork, createBackgroundWork, type ProxyAreaDeps, type ProxySettings } from './deps.ts';
export { proxyRoutes } from './routes.ts';
export type { ProxyEnv } from './step.ts';
export { parseProxyPath } from './target.ts';

/**
 * The completion proxy's routes (spec 4.2), mounted at the root: paths are absolute. Each is one `createRoute`
 * definition (routes.ts), declared in the OpenAPI document as written and served by one handler that admits the
 * request in one step (step.ts): body limit, token, room for the capture, route A's target, then the JSON body
 * against the route's schema; a long `messages` (or `input`) list is checked in slices (schema.ts).
 */
export function createProxyApp(deps: BaseDeps & ProxyAreaDeps): OpenAPIHono<ProxyEnv> {
  const app = new OpenAPIHono<ProxyEnv>({ defaultHook: rejectInvalid() });
  const onError = areaErrorHandler('proxy', deps.logger);
  app.onError(function handleProxyError(error, c) {
    // The caller went away and its disconnect aborted the upstream call: nothing failed here, and no one reads an
    // answer. Not a 500 with a stack in the log (and in the 5xx count), but nginx's 499, logged as what happened.
    if (!clientSignalOf(c).aborted) return onError(error, c);
    deps.logger.info('proxy request ended: the client disconnected');
    return c.body(null, CLIENT_CLOSED_REQUEST as StatusCode);
  });
  const exchanges = createExchangeStore(deps, deps.logger);
  // While more exchanges wait to be stored than the queue may hold (the store is slower than the flood), a request
  // that will capture waits for room before it is served, instead of memory growing.
  const routes = proxyRouter(app, { verifier: deps.verifier, roomForCapture: () => exchanges.room() });
  const completion = { schema: ProxyRequestSchema, prepare: messagesInSlices.prepare, listField: 'messages' };
  const responses = { schema: ResponsesRequestSchema, prepare: inputInSlices.prepare, listField: 'input' };

  function callOf(c: Context<ProxyEnv>): ProxyCall {
    const principal = c.get('principal');
    const switches = switchesOf(c);
    return {
      deps,
      principal,
      switches,
      clientSignal: clientSignalOf(c),
      respondSse: sseResponderOf(c),
      capture: (exchange, reply) => {
        if (switches.store) exchanges.capture(principal, exchange, reply);
      },
    };
  }

  /**
   * One chat completion. `text` is the body as the caller wrote it: route A forwards it as is when filtering and
   * context changed no message (the caller's own target, which reads the caller's JSON by its own rules). Route B
   * always sends the request it checked: its `model` was held to DEFAULT_MODEL_ID, and the operator's upstream
   * must not read another one from a duplicated key.
   */
  async function complete(
    c: Context<ProxyEnv>,
    model: ChatModel,
    owner: 'operator' | 'caller',
    body: ProxyRequest,
    text: string,
  ) {
    const call = callOf(c);
    const request = { ...body, messages: messagesInSlices.itemsOf(c) ?? body.messages };
    if (owner === 'operator') {
      requireDefaultModel(request.model, deps.defaultModelId);
      checkModelCanServe(model, request);
    }
    const prepared = await prepareMessages(deps, deps.logger, call.principal, request.messages, call.switches);
    const unchanged = owner === 'caller' && prepared.messages === request.messages;
    return forwardCompletion({
      model,
      request: { ...request, messages: prepared.messages },
      ...(unchanged ? { callerJson: text } : {}),
      headers: prepared.headers,
      upstreamOwner: owner,
      clientSignal: call.clientSignal,
      respondSse: call.respondSse,
      keepAliveMs: deps.settings.keepAliveMs,
      maxDurationMs: deps.settings.totalTimeoutMs,
      ...(call.switches.store ? { onReply: (reply: string) => call.capture(prepared, reply) } : {}),
    });
  }

  /** The validated Responses request, with its whole `input` when that was checked in slices. */
  function responsesRequestOf(c: Context<ProxyEnv>, request: ResponsesRequest): ResponsesRequest {
    return { ...request, input: inputInSlices.itemsOf(c) ?? request.input };
  }

  routes.post(defaultCompletionRoute, false, completion, (c, body, text) =>
    complete(c, deps.defaultModel, 'operator', body, text),
  );
  routes.post(targetCompletionRoute, true, completion, (c, body, text) => {
    const { baseUrl, apiKey } = c.get('target');
    return complete(c, deps.upstreamFor(baseUrl, apiKey), 'caller', body, text);
  });
  routes.post(defaultResponsesRoute, false, responses, (c, body) =>
    serveDefaultResponses(callOf(c), responsesRequestOf(c, body)),
  );
  routes.post(targetResponsesRoute, true, responses, (c, body, text) => {
    const { baseUrl, apiKey } = c.get('target');
    return serveTargetResponses(callOf(c), deps.upstreamFor(baseUrl, apiKey), responsesRequestOf(c, body), text);
  });
  routes.get(defaultModelsRoute, false, (c) => c.json(listDefaultModels(deps.defaultModelId), 200));
  routes.get(targetModelsRoute, true, (c) => {
    const { baseUrl, apiKey } = c.get('target');
    return listTargetModels(callOf(c), deps.upstreamFor(baseUrl, apiKey));
  });
  // The id read from the raw path, as the caller wrote it (a model id may hold slashes: target.ts modelPathOf).
  // Route B's first: `default/models/models/x` is the default route's model `models/x`.
  const rawModelIdOf = (c: Context<ProxyEnv>) => modelPathOf(rawPathOf(c.req.url))?.rawId ?? '';
  routes.get(defaultModelRoute, false, (c) => c.json(retrieveDefaultModel(deps.defaultModelId, rawModelIdOf(c)), 200));
  routes.get(targetModelRoute, true, (c) => {
    const { baseUrl, apiKey } = c.get('target');
    return retrieveTargetModel(callOf(c), deps.upstreamFor(baseUrl, apiKey), rawModelIdOf(c));
  });

  // A route A path whose base URL spans segments: served by route A's routes in the one-segment form (routes.ts).
  // An endpoint's path without a base URL and key: a 400 naming the path's form. An endpoint asked with a method it
  // does not take: a 405 naming the one it takes (Allow). Anything else under the prefix: a 404. All before any token
  // check.
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
    // An endpoint with the method it takes, but no base URL and key before it (one segment left out, most often the
    // key after a percent-encoded base URL): say what the path must hold, not that the endpoint does not exist.
    const endpoint = endpointOf(rawPath);
    if (endpoint && c.req.method === PROXY_ENDPOINTS[endpoint]) parseUpstreamPath(rawPath);
    const allowed = endpoint ? PROXY_ENDPOINTS[endpoint] : modelPathOf(rawPath) ? 'GET' : undefined;
    if (allowed && c.req.method !== allowed) throw methodNotAllowed(c, methodsServed(allowed).join(', '), 'here');
    throw new MemgateError(
      'not_found',
      'not_found',
      'no such proxy route; use POST …/chat/completions, POST …/responses, GET …/models or GET …/models/{model}',
    );
  });
  return app;
}
