import { z } from '@hono/zod-openapi';
import { DEFAULT_TOP_K } from '@memgate/core';
import { AddBody, DeleteBody, DocumentBody, SearchBody, ViewDocsResponse, ViewQuery } from '../context/schemas.ts';

// DESIGN.md section 5a. Each argument reuses the HTTP API's schema for the same field, so a limit (content length,
// top_k, organization id) is the same over MCP and over HTTP, and so is the message when it is broken.

const organizationId = SearchBody.shape.organization_id;

export const AddMemoryInput = z.object({
  content: DocumentBody.shape.content
    // Over HTTP an add with no non-empty document is refused by the store, in terms of `documents`; here the
    // argument is `content`, so the message names it.
    .refine((text) => text.trim() !== '', 'must not be empty')
    .describe('The text to remember (at most 1,000,000 characters).'),
  fileName: DocumentBody.shape.fileName.describe(
    'A name for this memory (default "untitled"); delete_memory with this name as `source` removes it.',
  ),
  organization_id: organizationId.describe(
    "Share the memory with this organization (one of the token's `orgs`); default: only you see it.",
  ),
  metadata: AddBody.shape.metadata.describe('Extra fields kept with the memory, e.g. {"tags": ["preferences"]}.'),
});
export type AddMemoryInput = z.infer<typeof AddMemoryInput>;

export const AddMemoryOutput = z.object({
  contextId: z.string().describe("The memory's document id (delete_memory with by_id: true removes it)."),
});
export type AddMemoryOutput = z.infer<typeof AddMemoryOutput>;

export const SearchMemoryInput = z.object({
  query: SearchBody.shape.query.describe('What to look for, in natural language.'),
  top_k: SearchBody.shape.top_k.describe(`How many results at most (default ${DEFAULT_TOP_K}, at most 100).`),
  min_score: SearchBody.shape.minimum_similarity_threshold
    .optional()
    .describe(
      'Leave out results scoring below this relevance, from 0 to 1. Default: every result that matches the query at all (score above 0); 0 also returns those that match nothing of it.',
    ),
  organization_id: organizationId.describe("Search only this organization's memories; default: all you can see."),
});
export type SearchMemoryInput = z.infer<typeof SearchMemoryInput>;

export const SearchMemoryOutput = z.object({
  results: z.array(
    z.object({
      contextId: z.string().describe('The id of the matching passage.'),
      text: z.string(),
      score: z.number().describe('Relevance from 0 to 1, best first.'),
      fileName: z.string(),
      documentId: z.string().describe('The memory the passage belongs to (for delete_memory with by_id: true).'),
    }),
  ),
});
export type SearchMemoryOutput = z.infer<typeof SearchMemoryOutput>;

export const DeleteMemoryInput = z.object({
  source: DeleteBody.shape.source.describe(
    "The memory's fileName (or source): every memory of that name goes. With by_id: true, a contextId instead.",
  ),
  by_id: DeleteBody.shape.by_id.describe('Treat `source` as a contextId (a documentId removes the whole memory).'),
});
export type DeleteMemoryInput = z.infer<typeof DeleteMemoryInput>;

export const DeleteMemoryOutput = z.object({
  deleted: z.literal(true).describe('Also true when nothing matched: a delete is idempotent.'),
});
export type DeleteMemoryOutput = z.infer<typeof DeleteMemoryOutput>;

export const ListDocumentsInput = z.object({
  organization_id: ViewQuery.shape.organization_id.describe(
    "List this organization's memories only; default: all you can see.",
  ),
  cursor: ViewQuery.shape.cursor.describe('The nextCursor of the previous page.'),
});
export type ListDocumentsInput = z.infer<typeof ListDocumentsInput>;

export const ListDocumentsOutput = z.object({
  documents: ViewDocsResponse.shape.documents,
  nextCursor: ViewDocsResponse.shape.nextCursor.describe('Pass it as `cursor` for the next page; null at the end.'),
});
export type ListDocumentsOutput = z.infer<typeof ListDocumentsOutput>;

/** A tool's schema as MCP lists it: JSON Schema draft-07 (what the SDK's client validates with), no `$schema`. */
export function jsonSchemaOf(schema: z.ZodObject, io: 'input' | 'output'): { type: 'object'; [key: string]: unknown } {
  const { $schema, ...rest } = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' });
  void $schema;
  return { ...rest, type: 'object' };
}
