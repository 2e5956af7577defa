import type { OpenAPIHono, RouteConfig, z } from '@hono/zod-openapi';
import type { Principal } from '@memgate/core';
import type { Context } from 'hono';
import { principalOf } from '../auth/middleware.ts';
import type { TokenVerifier } from '../auth/verifier.ts';
import { checkBodyLimit, type PrepareBody, readJsonText, rejectInvalid } from '../errors/index.ts';
import { requestHeader } from '../request/index.ts';
import type { Switches } from './context.ts';
import { type UpstreamTarget, upstreamTargetOf } from './target.ts';

/** What the proxy's admission leaves for its handlers: the caller, and on route A the target read from the path. */
export type ProxyEnv = { Variables: { principal: Principal; target: UpstreamTarget } };

export function switchesOf(c: Context): Switches {
  const off = (name: string) => requestHeader(c, name)?.trim().toLowerCase() === 'off';
  return { filter: !off('x-memgate-filter'), context: !off('x-memgate-context'), store: !off('x-memgate-store') };
}

/** The raw path: c.req.path may be decoded, and route A's base URL needs its original form. */
export function rawPathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const end = url.indexOf('?', start);
  return end < 0 ? url.slice(start) : url.slice(start, end);
}

/**
 * An OpenAPI path (`/{name}`) as Hono routes it (`/:name`), as `@hono/zod-openapi` converts it; a model id, last in
 * its path, may span segments (`/:model{.+}`).
 */
const honoPath = (path: string) => path.replace(/\/{model}$/, '/:model{.+}').replaceAll(/\/{(.+?)}/g, '/:$1');

export interface ProxySteps {
  verifier: TokenVerifier;
  /** Back-pressure on captures: resolves when the capture queue has room (exchanges waiting to be stored). */
  roomForCapture(): Promise<void>;
}

export interface PostedBody<T> {
  schema: z.ZodType<T>;
  /** What the schema checks instead of the whole body (a long list checked in slices, sliced-list.ts). */
  prepare: PrepareBody;
  /** The list field whose problems get the code `invalid_messages`. */
  listField: string;
}

/**
 * The proxy's routes, each served by one handler that admits the request in one step, in the order the separate
 * middleware and validators did it before (each of them one more async layer, and one more error-handling wrapper
 * around it once the proxy app is mounted: ~11 per request, bench/OVER-BUDGET.md): the body limit (a declared length
 * over it refused at once, a chunked body read and refused as it passes it), the token and its `proxy` scope, room
 * in the capture queue when this request will capture, route A's target from the raw path, then the JSON body
 * (readJsonText) checked against the route's schema, a long list in slices. Each route is declared in the OpenAPI
 * document as it is written in routes.ts, path parameters and switch headers included: those could refuse nothing
 * (every request matching the path has them), so only the body is checked.
 */
export function proxyRouter(app: OpenAPIHono<ProxyEnv>, { verifier, roomForCapture }: ProxySteps) {
  const auth = { verifier, scope: 'proxy' as const };

  async function admit(c: Context<ProxyEnv>, onTarget: boolean, willCapture: boolean): Promise<void> {
    c.set('principal', await principalOf(c, auth));
    if (willCapture && switchesOf(c).store) await roomForCapture();
    if (onTarget) c.set('target', upstreamTargetOf(c.req.url, rawPathOf(c.req.url)));
  }

  return {
    post<T>(
      route: RouteConfig,
      onTarget: boolean,
      { schema, prepare, listField }: PostedBody<T>,
      /** `text`: the body as the caller wrote it, for a route that forwards it unchanged (forward.ts). */
      serve: (c: Context<ProxyEnv>, body: T, text: string) => Promise<Response> | Response,
    ): void {
      app.openAPIRegistry.registerPath(route);
      const onInvalid = rejectInvalid({ listField });
      app.post(honoPath(route.path), async function servePosted(c) {
        const reading = checkBodyLimit(c);
        if (reading) await reading;
        await admit(c, onTarget, true);
        const { text, value } = await readJsonText(c);
        const checked = schema.safeParse(await prepare(value, c));
        onInvalid(checked);
        return serve(c, checked.data as T, text);
      });
    },
    get(route: RouteConfig, onTarget: boolean, serve: (c: Context<ProxyEnv>) => Promise<Response> | Response): void {
      app.openAPIRegistry.registerPath(route);
      app.get(honoPath(route.path), async function serveGot(c) {
        await admit(c, onTarget, false);
        return serve(c);
      });
    },
  };
}
