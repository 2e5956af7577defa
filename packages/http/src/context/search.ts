import { createRoute, z } from '@hono/zod-openapi';
import { DEFAULT_TOP_K, MAX_QUERY_CHARS, MAX_TOP_K } from '@memgate/core';
import { bodyErrors, json, nullsLeftOut, Scope, type ServeContextRoute, tags, withBody } from './common.ts';

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
const leaveOutNulls = nullsLeftOut(SearchBody);

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

export const searchRoute = createRoute({
  method: 'post',
  path: '/api/v1/context/search',
  tags,
  // The score is hybrid (README "Search score"), not a cosine: a summary that says cosine misleads a band's choice.
  summary:
    'Search visible chunks whose score (embedding and word match, in [0, 1]) is within [minimum_similarity_threshold, similarity_threshold] (scope context:read)',
  description: `The caller's visible chunks (its own and its organizations', \`scope\` internal unless given) with minimum_similarity_threshold <= score <= similarity_threshold, best first; the band applies first, then \`top_k\` (default ${DEFAULT_TOP_K}, at most ${MAX_TOP_K}) cuts. \`organization_id\` narrows to one organization; \`metadata\` keys (file_name, doc_type, source, context_type, tags) narrow by equality; any other key is a 400 (it would narrow nothing).`,
  request: {
    body: {
      content: {
        'application/json': {
          schema: SearchBody,
          example: { query: 'when is the launch?', similarity_threshold: 1, minimum_similarity_threshold: 0.1 },
        },
      },
      required: true,
    },
  },
  responses: { 202: json(SearchResponse, 'results, best first, at most top_k'), ...bodyErrors },
});

/** POST /api/v1/context/search. */
export const serveSearch: ServeContextRoute = (app, deps) => {
  const { store } = deps;
  app.openapi(
    { ...searchRoute, middleware: withBody(deps, 'context:read', leaveOutNulls) },
    async function searchContext(c) {
      const results = await store.search(c.var.principal, c.req.valid('json'));
      return c.json({ results }, 202);
    },
  );
};
