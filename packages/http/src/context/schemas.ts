import { z } from '@hono/zod-openapi';
import {
  CONTEXT_SCOPES,
  CONTEXT_TYPES,
  MAX_DOCUMENT_CHARS,
  MAX_DOCUMENTS,
  MAX_QUERY_CHARS,
  MAX_TOP_K,
  MAX_VIEW_LIMIT,
} from '@memgate/core';

// Request schemas describe what a client may send (both forms of `chained`/`modalities`); the handlers convert.

const BooleanLike = z.union([z.boolean(), z.enum(['true', 'false'])]);
const Scope = z.enum(CONTEXT_SCOPES);
const ContextType = z.enum(CONTEXT_TYPES);

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
        modalities: z.union([z.array(z.string()), z.string()]).optional(),
        tags: z.union([z.array(z.string()), z.string()]).optional(),
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

export const AddResponse = z
  .object({
    contextIds: z.array(z.string()),
    documents: z.array(z.object({ contextId: z.string(), fileName: z.string(), chunks: z.number().int() })),
  })
  .openapi('ContextAddResponse');
export type AddResponse = z.infer<typeof AddResponse>;

export const SearchBody = z
  .object({
    user_id: z.string().min(1).max(128).optional(),
    query: z.string().min(1).max(MAX_QUERY_CHARS),
    similarity_threshold: z.number().min(0).max(1),
    minimum_similarity_threshold: z.number().min(0).max(1),
    scope: Scope.optional(),
    top_k: z.number().int().min(1).max(MAX_TOP_K).optional(),
    organization_id: z.string().min(1).max(128).optional(),
    metadata: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi('ContextSearchRequest');
export type SearchBody = z.infer<typeof SearchBody>;

export const SearchResponse = z
  .object({
    results: z.array(
      z.object({
        contextId: z.string(),
        contextData: z.string(),
        score: z.number(),
        documentId: z.string(),
        fileName: z.string(),
        source: z.string(),
      }),
    ),
  })
  .openapi('ContextSearchResponse');
export type SearchResponse = z.infer<typeof SearchResponse>;

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

export const ViewQuery = z.object({
  /** Extension: another user's records in the organizations both share (needs context:admin). */
  user_id: z.string().min(1).max(128).optional(),
  organization_id: z.string().min(1).max(128).optional(),
  context_type: ContextType.optional(),
  scope: Scope.optional(),
  limit: z.coerce.number().int().min(1).max(MAX_VIEW_LIMIT).optional(),
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

export const ContextError = z.object({ response: z.string(), error: z.string() }).openapi('ContextError');
export type ContextError = z.infer<typeof ContextError>;
