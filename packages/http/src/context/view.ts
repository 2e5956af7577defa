import { createRoute, z } from '@hono/zod-openapi';
import { type ContextRecord, DEFAULT_VIEW_LIMIT, MAX_VIEW_LIMIT } from '@memgate/core';
import { authenticate } from '../auth/index.ts';
import { ContextError, ContextType, errors, json, Scope, type ServeContextRoute, tags } from './common.ts';

/**
 * A filter the docs page's requests leave out: Scalar writes an enum's first value into every request it shows unless
 * the parameter's example is marked off, and a copied view would then list only records of that type or scope.
 */
const unsetInSamples = { examples: { any: { summary: 'not narrowed', 'x-disabled': true } } };

export const ViewQuery = z.object({
  /** Extension: another user's records in the organizations both share (needs context:admin). */
  user_id: z.string().min(1).max(128).optional(),
  organization_id: z.string().min(1).max(128).optional(),
  context_type: ContextType.optional().openapi({ param: unsetInSamples }),
  scope: Scope.optional().openapi({ param: unsetInSamples }),
  limit: z.coerce
    .number({ error: `must be an integer from 1 to ${MAX_VIEW_LIMIT}` })
    .int()
    .min(1)
    .max(MAX_VIEW_LIMIT)
    .optional(),
  cursor: z.string().max(4096).optional(),
});
export type ViewQuery = z.infer<typeof ViewQuery>;

export const ContextRecordView = z
  .object({
    _id: z.string(),
    user_id: z.string(),
    organization_id: z.string().nullable(),
    parent_context_nodes: z.array(z.string()),
    children_context_nodes: z.array(z.string()),
    context_type: z.string(),
    tags: z.array(z.string()),
    source: z.string(),
    content: z.union([z.record(z.string(), z.unknown()), z.string()]),
    blob: z.unknown(),
    indexed: z.boolean(),
    indexable: z.boolean(),
    governing_policies: z.union([z.string(), z.array(z.string())]).nullable(),
    override_policy: z.boolean(),
    telemetry_data: z.record(z.string(), z.unknown()),
    createdAt: z.string(),
    updatedAt: z.string(),
    scopes: z.array(z.string()),
    metadata: z.record(z.string(), z.unknown()),
    corresponding_vector_id: z.string(),
    text: z.string(),
    score: z.number(),
  })
  .openapi('ContextRecord');
export type ContextRecordView = z.infer<typeof ContextRecordView>;

export const ViewResponse = z
  .object({ context: z.array(ContextRecordView), nextCursor: z.string().nullable() })
  .openapi('ContextViewResponse');
export type ViewResponse = z.infer<typeof ViewResponse>;

export const ViewDocsResponse = z
  .object({
    documents: z.array(
      z.object({
        contextId: z.string(),
        fileName: z.string(),
        docType: z.string(),
        size: z.number(),
        source: z.string(),
        context_type: z.string(),
        chunks: z.number().int(),
        scopes: z.array(z.string()),
        organization_id: z.string().nullable(),
        createdAt: z.string(),
        updatedAt: z.string(),
      }),
    ),
    nextCursor: z.string().nullable(),
  })
  .openapi('ContextViewDocsResponse');
export type ViewDocsResponse = z.infer<typeof ViewDocsResponse>;

const PAGING = `The caller's own records, then each of its organizations' (or one, \`organization_id\`), each newest first; \`limit\` per page (default ${DEFAULT_VIEW_LIMIT}, at most ${MAX_VIEW_LIMIT}); send \`nextCursor\` back as \`cursor\` for the next page (null: the last).`;

export const viewRoute = createRoute({
  method: 'get',
  path: '/api/v1/context/view',
  tags,
  summary: 'Visible records, documents and chunks (scope context:read)',
  description: PAGING,
  request: { query: ViewQuery },
  responses: { 200: json(ViewResponse, 'a page of records'), ...errors },
});

export const viewDocsRoute = createRoute({
  method: 'get',
  path: '/api/v1/context/view/docs',
  tags,
  summary: 'One summary per visible document (scope context:read)',
  description: PAGING,
  request: { query: ViewQuery },
  responses: {
    200: json(ViewDocsResponse, 'a page of documents'),
    402: json(ContextError, "token 'sub' is not a usable user id"),
    ...errors,
  },
});

/** A record as the view shows it: the spec's fields, no bookkeeping. `score` is 0: a listing is not a ranking. */
function present({
  status,
  tenant,
  document_id,
  attempts,
  kind,
  fingerprint,
  ...record
}: ContextRecord): ContextRecordView {
  void fingerprint;
  void status;
  void tenant;
  void document_id;
  void attempts;
  void kind;
  return { ...record, score: 0 };
}

/** GET /api/v1/context/view. */
export const serveView: ServeContextRoute = (app, deps) => {
  const { verifier, store } = deps;
  app.openapi(
    { ...viewRoute, middleware: [authenticate({ verifier, scope: 'context:read' })] },
    async function viewContext(c) {
      const page = await store.view(c.var.principal, c.req.valid('query'));
      return c.json({ context: page.items.map(present), nextCursor: page.nextCursor }, 200);
    },
  );
};

/** GET /api/v1/context/view/docs. */
export const serveViewDocs: ServeContextRoute = (app, deps) => {
  const { verifier, store } = deps;
  app.openapi(
    { ...viewDocsRoute, middleware: [authenticate({ verifier, scope: 'context:read', unusableUserStatus: 402 })] },
    async function viewDocuments(c) {
      const page = await store.viewDocs(c.var.principal, c.req.valid('query'));
      return c.json({ documents: page.items, nextCursor: page.nextCursor }, 200);
    },
  );
};
