import { OpenAPIHono } from '@hono/zod-openapi';
import type { ContextRecord, ContextStore } from '@memgate/core';
import { type AuthEnv, authenticate } from '../auth/index.ts';
import type { BaseDeps } from '../deps.ts';
import { areaErrorHandler, jsonBody, limitBody, throwOnInvalid } from '../errors/index.ts';
import { addRoute, deleteRoute, searchRoute, viewDocsRoute, viewRoute } from './routes.ts';
import type { ContextRecordView } from './schemas.ts';

export interface ContextAreaDeps {
  store: ContextStore;
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

/**
 * The context store's routes (spec 4.1), mounted at the root: paths are absolute. Each is one `createRoute`
 * definition (routes.ts): the library validates the body or query against its schema and the OpenAPI document is
 * generated from the same definitions. Before the validator run the body limit, the token check and `jsonBody`
 * (JSON, nesting depth, an object), so a bad token is a 401 before the body is read, as it always was.
 */
export function createContextApp(deps: BaseDeps & ContextAreaDeps): OpenAPIHono<AuthEnv> {
  const app = new OpenAPIHono<AuthEnv>({ defaultHook: throwOnInvalid });
  const { verifier, store } = deps;
  const withBody = (scope: 'context:write' | 'context:read' | 'context:delete') => [
    limitBody(),
    authenticate({ verifier, scope }),
    jsonBody(),
  ];

  app.openapi({ ...addRoute, middleware: withBody('context:write') }, async function addDocuments(c) {
    const { chained, metadata, ...rest } = c.req.valid('json');
    const result = await store.add(c.var.principal, {
      ...rest,
      ...(metadata ? { metadata } : {}),
      chained: chained === true || chained === 'true',
    });
    return c.json(result, 201);
  });

  app.openapi({ ...searchRoute, middleware: withBody('context:read') }, async function searchContext(c) {
    const results = await store.search(c.var.principal, c.req.valid('json'));
    return c.json({ results }, 202);
  });

  app.openapi({ ...deleteRoute, middleware: withBody('context:delete') }, async function deleteContext(c) {
    await store.delete(c.var.principal, c.req.valid('json'));
    return c.body(null, 204);
  });

  app.openapi(
    { ...viewRoute, middleware: [authenticate({ verifier, scope: 'context:read' })] },
    async function viewContext(c) {
      const page = await store.view(c.var.principal, c.req.valid('query'));
      return c.json({ context: page.items.map(present), nextCursor: page.nextCursor }, 200);
    },
  );

  app.openapi(
    { ...viewDocsRoute, middleware: [authenticate({ verifier, scope: 'context:read', unusableUserStatus: 402 })] },
    async function viewDocuments(c) {
      const page = await store.viewDocs(c.var.principal, c.req.valid('query'));
      return c.json({ documents: page.items, nextCursor: page.nextCursor }, 200);
    },
  );

  app.onError(areaErrorHandler('context', deps.logger));
  return app;
}
