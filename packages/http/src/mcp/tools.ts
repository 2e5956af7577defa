import type { z } from '@hono/zod-openapi';
import { type ContextStore, type Principal, requireScope, type Scope } from '@memgate/core';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { fromZodError } from '../errors/index.ts';
import { refusingNull, withoutNulls } from '../errors/null-fields.ts';
import {
  AddMemoryInput,
  AddMemoryOutput,
  DeleteMemoryInput,
  DeleteMemoryOutput,
  jsonSchemaOf,
  ListDocumentsInput,
  ListDocumentsOutput,
  SearchMemoryInput,
  SearchMemoryOutput,
} from './schemas.ts';

/** One MCP tool over the context store: what `tools/list` shows, and how `tools/call` runs it. */
export interface MemoryTool {
  name: string;
  /** Built on first read: its JSON Schemas are for `tools/list`, and a cold start serving `tools/call` skips them. */
  readonly definition: Tool;
  /** Checks the scope, then the arguments (in the HTTP API's order), then runs the store's use case. */
  call(store: ContextStore, principal: Principal, args: unknown): Promise<Record<string, unknown>>;
}

function defineTool<I extends z.ZodObject, O extends z.ZodObject>(tool: {
  name: string;
  title: string;
  description: string;
  scope: Scope;
  annotations: Tool['annotations'];
  input: I;
  output: O;
  run(store: ContextStore, principal: Principal, input: z.output<I>): Promise<z.input<O>>;
}): MemoryTool {
  const { name, title, description, scope, annotations, input, output, run } = tool;
  const refused = refusingNull(input);
  let definition: Tool | undefined;
  return {
    name,
    get definition() {
      definition ??= {
        name,
        title,
        description: `${description} Needs the '${scope}' scope.`,
        inputSchema: jsonSchemaOf(input, 'input'),
        outputSchema: jsonSchemaOf(output, 'output'),
        annotations: { title, ...annotations },
      };
      return definition;
    },
    async call(store, principal, args) {
      requireScope(principal, scope);
      // An argument sent as null is left out (withoutNulls): OpenAI's strict tool schemas make every argument
      // required and nullable, and models fill the unset ones with null.
      const parsed = input.safeParse(isObject(args) ? withoutNulls(args, refused) : args);
      if (!parsed.success) throw fromZodError(parsed.error);
      // Parsed against the declared output schema, so what a client validates never carries an undeclared field.
      return output.parse(await run(store, principal, parsed.data)) as Record<string, unknown>;
    },
  };
}

const isObject = (args: unknown): args is Record<string, unknown> =>
  args !== null && typeof args === 'object' && !Array.isArray(args);

/**
 * The band of a search without `min_score`: every result that matches the query at all. A score of 0 means nothing
 * of the query matched (README "Search score"), which an agent asking to recall never wants; the band is inclusive,
 * so its floor is the least positive number. The HTTP search has no default: its caller states the band, and a
 * `min_score` given here (0 too) is taken as stated. The ceiling is fixed at 1.
 */
const MATCHING_BAND = { similarity_threshold: 1, minimum_similarity_threshold: Number.MIN_VALUE };

/** DESIGN.md section 5a: the four memory tools. */
export const MEMORY_TOOLS: readonly MemoryTool[] = [
  defineTool({
    name: 'add_memory',
    title: 'Remember',
    description:
      'Stores a piece of text as a memory that search_memory can find from then on. Adding the same text under ' +
      'the same name again replaces it rather than duplicating it.',
    scope: 'context:write',
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    input: AddMemoryInput,
    output: AddMemoryOutput,
    async run(store, principal, { content, fileName, organization_id, metadata }) {
      const added = await store.add(principal, {
        documents: [{ content, ...(fileName === undefined ? {} : { fileName }) }],
        ...(organization_id === undefined ? {} : { organization_id }),
        ...(metadata === undefined ? {} : { metadata }),
      });
      return { contextId: added.contextIds[0] as string };
    },
  }),
  defineTool({
    name: 'search_memory',
    title: 'Recall',
    description:
      'Finds the stored passages most relevant to a query, best first, among your memories and those of your ' +
      'organizations.',
    scope: 'context:read',
    annotations: { readOnlyHint: true, openWorldHint: false },
    input: SearchMemoryInput,
    output: SearchMemoryOutput,
    async run(store, principal, { query, top_k, min_score, organization_id }) {
      const hits = await store.search(principal, {
        query,
        ...MATCHING_BAND,
        ...(min_score === undefined ? {} : { minimum_similarity_threshold: min_score }),
        ...(top_k === undefined ? {} : { top_k }),
        ...(organization_id === undefined ? {} : { organization_id }),
      });
      return {
        results: hits.map((hit) => ({
          contextId: hit.contextId,
          text: hit.contextData,
          score: hit.score,
          fileName: hit.fileName,
          documentId: hit.documentId,
        })),
      };
    },
  }),
  defineTool({
    name: 'delete_memory',
    title: 'Forget',
    description:
      'Deletes memories: by default every memory whose fileName (or source) equals `source`; with by_id: true ' +
      'the one whose contextId is `source` (a documentId removes the memory with all its passages). Once it ' +
      'returns, search_memory never finds what was deleted.',
    scope: 'context:delete',
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    input: DeleteMemoryInput,
    output: DeleteMemoryOutput,
    async run(store, principal, { source, by_id }) {
      await store.delete(principal, { source, ...(by_id === undefined ? {} : { by_id }) });
      return { deleted: true as const };
    },
  }),
  defineTool({
    name: 'list_documents',
    title: 'List memories',
    description: 'Lists the stored memories you can see (one entry per memory, without its text), a page at a time.',
    scope: 'context:read',
    annotations: { readOnlyHint: true, openWorldHint: false },
    input: ListDocumentsInput,
    output: ListDocumentsOutput,
    async run(store, principal, { organization_id, cursor }) {
      const page = await store.viewDocs(principal, {
        ...(organization_id === undefined ? {} : { organization_id }),
        ...(cursor === undefined ? {} : { cursor }),
      });
      return { documents: page.items, nextCursor: page.nextCursor };
    },
  }),
];
