import { createRoute, z } from '@hono/zod-openapi';
import { bodyErrors, nullsLeftOut, type ServeContextRoute, tags, withBody } from './common.ts';

export const DeleteBody = z
  .object({
    source: z.string().min(1).max(1024),
    user_id: z.string().min(1).max(128).nullable().optional(),
    organization_id: z.string().min(1).max(128).nullable().optional(),
    by_doc: z.boolean().optional(),
    by_id: z.boolean().optional(),
  })
  .openapi('ContextDeleteRequest');
export type DeleteBody = z.infer<typeof DeleteBody>;
const leaveOutNulls = nullsLeftOut(DeleteBody);

export const deleteRoute = createRoute({
  method: 'post',
  path: '/api/v1/context/delete',
  tags,
  summary: 'Delete by document (source or file name) or by id (scope context:delete); idempotent',
  description:
    "`source` is required. `by_doc` (the default): every document whose source or file name equals `source`, with its chunks. `by_id: true`: `source` is a context id, that record and, for a document, its chunks; a chunk also leaves its document's `children_context_nodes` and `chunks` count (adding the document again restores it); a chained document's neighbours no longer link to it in view. `user_id` and `organization_id` narrow whose records (another user's need context:admin); `organization_id: null` narrows to personal records, omitted it covers every tenant the caller sees. 204 also when nothing matched; nothing deleted is returned again by view or search.",
  request: {
    body: { content: { 'application/json': { schema: DeleteBody, example: { source: 'plan.md' } } }, required: true },
  },
  responses: { 204: { description: 'deleted (or nothing matched)' }, ...bodyErrors },
});

/** POST /api/v1/context/delete. */
export const serveDelete: ServeContextRoute = (app, deps) => {
  const { store } = deps;
  app.openapi(
    { ...deleteRoute, middleware: withBody(deps, 'context:delete', leaveOutNulls) },
    async function deleteContext(c) {
      await store.delete(c.var.principal, c.req.valid('json'));
      return c.body(null, 204);
    },
  );
};
