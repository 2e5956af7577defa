import { createRoute, z } from '@hono/zod-openapi';
import { MAX_DOCUMENT_CHARS, MAX_DOCUMENTS } from '@memgate/core';
import {
  BooleanLike,
  bodyErrors,
  ContextType,
  json,
  nullsLeftOut,
  Scope,
  type ServeContextRoute,
  StringListLike,
  tags,
  withBody,
} from './common.ts';

// Metadata is copied into every document record: DynamoDB refuses items nested deeper than 32 levels or over
// 400 KB, so deeper or bigger metadata is the caller's mistake (400), not a failed write (500).
const MAX_METADATA_DEPTH = 16;
const MAX_METADATA_BYTES = 64 * 1024;

function depthOf(value: unknown, limit: number): number {
  if (typeof value !== 'object' || value === null || limit < 0) return 0;
  let deepest = 0;
  for (const item of Object.values(value)) deepest = Math.max(deepest, depthOf(item, limit - 1));
  return deepest + 1;
}

function fitsOneItem(metadata: Record<string, unknown>): boolean {
  return (
    depthOf(metadata, MAX_METADATA_DEPTH) <= MAX_METADATA_DEPTH &&
    Buffer.byteLength(JSON.stringify(metadata)) <= MAX_METADATA_BYTES
  );
}

export const DocumentBody = z
  .object({
    content: z.string().max(MAX_DOCUMENT_CHARS),
    fileName: z.string().max(1024).optional(),
    fileType: z.string().max(256).optional(),
    fileSize: z.number().nonnegative().optional(),
    lastModified: z.string().max(64).optional(),
  })
  .openapi('ContextDocument');
export type DocumentBody = z.infer<typeof DocumentBody>;

export const AddBody = z
  .object({
    user_id: z.string().min(1).max(128).optional(),
    organization_id: z.string().min(1).max(128).nullable().optional(),
    documents: z.array(DocumentBody).min(1).max(MAX_DOCUMENTS),
    source: z.string().max(1024).optional(),
    context_type: ContextType.optional(),
    scope: Scope.optional(),
    metadata: z
      .object({
        file_name: z.string().optional(),
        doc_type: z.string().optional(),
        size: z.number().optional(),
        modalities: StringListLike.optional(),
        tags: StringListLike.optional(),
      })
      .catchall(z.unknown())
      .refine(fitsOneItem, {
        message: `must nest at most ${MAX_METADATA_DEPTH} levels and take at most ${MAX_METADATA_BYTES} bytes as JSON`,
      })
      .optional(),
    chained: BooleanLike.optional(),
    tags: z.array(z.string().max(256)).max(100).optional(),
  })
  .openapi('ContextAddRequest');
export type AddBody = z.infer<typeof AddBody>;
const leaveOutNulls = nullsLeftOut(AddBody, { field: 'documents', schema: DocumentBody });

export const AddResponse = z
  .object({
    contextIds: z.array(z.string()),
    documents: z.array(z.object({ contextId: z.string(), fileName: z.string(), chunks: z.number().int() })),
  })
  .openapi('ContextAddResponse');
export type AddResponse = z.infer<typeof AddResponse>;

export const addRoute = createRoute({
  method: 'post',
  path: '/api/v1/context/add',
  tags,
  summary: 'Add documents (scope context:write); idempotent per owner, organization, source, file name and content',
  request: {
    body: {
      // The README's quick start, so the page's "Try it" runs as it stands.
      content: {
        'application/json': {
          schema: AddBody,
          example: {
            documents: [{ content: 'The launch is planned for March. Budget owner: Dana.', fileName: 'plan.md' }],
          },
        },
      },
      required: true,
    },
  },
  responses: { 201: json(AddResponse, 'documents added and searchable'), ...bodyErrors },
});

/** POST /api/v1/context/add. */
export const serveAdd: ServeContextRoute = (app, deps) => {
  const { store } = deps;
  app.openapi(
    { ...addRoute, middleware: withBody(deps, 'context:write', leaveOutNulls) },
    async function addDocuments(c) {
      const { chained, metadata, ...rest } = c.req.valid('json');
      const result = await store.add(c.var.principal, {
        ...rest,
        ...(metadata ? { metadata } : {}),
        chained: chained === true || chained === 'true',
      });
      return c.json(result, 201);
    },
  );
};
