import { OpenAPIHono, type z } from '@hono/zod-openapi';
import type { ContextRecord, ContextStore } from '@memgate/core';
import type { Context } from 'hono';
import { type AuthEnv, authenticate } from '../auth/index.ts';
import type { BaseDeps } from '../deps.ts';
import { areaErrorHandler, fromZodError, limitBody, readJsonObject, throwOnInvalid } from '../errors/index.ts';
import { addRoute, deleteRoute, searchRoute, viewDocsRoute, viewRoute } from './routes.ts';
import { AddBody, type ContextRecordView, DeleteBody, SearchBody, ViewQuery } from './schemas.ts';

export interface ContextAreaDeps {
  store: ContextStore;
}

async function parseBody<T extends z.ZodType>(c: Context, schema: T): Promise<z.infer<T>> {
  const result = schema.safeParse(await readJsonObject(c));
  if (!result.success) throw fromZodError(result.error);
  return result.data;
}

function parseQuery(c: Context): ViewQuery {
  const result = ViewQuery.safeParse(c.req.query());
  if (!result.success) throw fromZodError(result.error);
  return result.data;
}

/** A record as the view shows it: the spec's fields, no bookkeeping. `score` is 0: a listing is not a ranking. */
function present({ status, tenant, document_id, attempts, kind, ...record }: ContextRecord): ContextRecordView {
  void status;
  void tenant;
  void document_id;
  void attempts;
  void kind;
  return { ...record, score: 0 };
}

/** The context store's routes (spec 4.1), mounted at the root: paths are absolute. */
export function createContextApp(deps: BaseDeps & ContextAreaDeps): OpenAPIHono {
  const app = new OpenAPIHono<AuthEnv>({ defaultHook: throwOnInvalid });
  const { verifier, store } = deps;
  for (const route of [addRoute, searchRoute, deleteRoute, viewRoute, viewDocsRoute])
    app.openAPIRegistry.registerPath(route);

  app.post(addRoute.path, limitBody(), authenticate({ verifier, scope: 'context:write' }), async (c) => {
    const body = await parseBody(c, AddBody);
    const { chained, metadata, ...rest } = body;
    const result = await store.add(c.var.principal, {
      ...rest,
      ...(metadata ? { metadata } : {}),
      chained: chained === true || chained === 'true',
    });
    return c.json(result, 201);
  });

  app.post(searchRoute.path, limitBody(), authenticate({ verifier, scope: 'context:read' }), async (c) => {
    const results = await store.search(c.var.principal, await parseBody(c, SearchBody));
    return c.json({ results }, 202);
  });

  app.post(deleteRoute.path, limitBody(), authenticate({ verifier, scope: 'context:delete' }), async (c) => {
    await store.delete(c.var.principal, await parseBody(c, DeleteBody));
    return c.body(null, 204);
  });

  app.get(viewRoute.path, authenticate({ verifier, scope: 'context:read' }), async (c) => {
    const page = await store.view(c.var.principal, parseQuery(c));
    return c.json({ context: page.items.map(present), nextCursor: page.nextCursor });
  });

  app.get(viewDocsRoute.path, authenticate({ verifier, scope: 'context:read', unusableUserStatus: 402 }), async (c) => {
    const page = await store.viewDocs(c.var.principal, parseQuery(c));
    return c.json({ documents: page.items, nextCursor: page.nextCursor });
  });

  app.onError(areaErrorHandler('context', deps.logger));
  return app as unknown as OpenAPIHono;
}
