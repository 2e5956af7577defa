import { createRoute } from '@hono/zod-openapi';
import {
  AddBody,
  AddResponse,
  ContextError,
  DeleteBody,
  SearchBody,
  SearchResponse,
  ViewDocsResponse,
  ViewQuery,
  ViewResponse,
} from './schemas.ts';

const json = <T>(schema: T, description: string) => ({ content: { 'application/json': { schema } }, description });
const errors = {
  400: json(ContextError, 'invalid input; `response` names the field'),
  401: json(ContextError, 'missing, invalid or expired token'),
  403: json(ContextError, 'missing scope, or acting outside your user or organizations'),
  413: json(ContextError, 'body over 6 MB'),
  500: json(ContextError, 'internal error'),
};
const tags = ['context'];

export const addRoute = createRoute({
  method: 'post',
  path: '/api/v1/context/add',
  tags,
  summary: 'Add documents (scope context:write); idempotent per owner, organization, source, file name and content',
  request: { body: { content: { 'application/json': { schema: AddBody } }, required: true } },
  responses: { 201: json(AddResponse, 'documents added and searchable'), ...errors },
});

export const searchRoute = createRoute({
  method: 'post',
  path: '/api/v1/context/search',
  tags,
  summary: 'Search visible chunks by cosine similarity within [minimum_similarity_threshold, similarity_threshold]',
  request: { body: { content: { 'application/json': { schema: SearchBody } }, required: true } },
  responses: { 202: json(SearchResponse, 'results, best first, at most top_k'), ...errors },
});

export const deleteRoute = createRoute({
  method: 'post',
  path: '/api/v1/context/delete',
  tags,
  summary: 'Delete by document (source or file name) or by id (scope context:delete); idempotent',
  request: { body: { content: { 'application/json': { schema: DeleteBody } }, required: true } },
  responses: { 204: { description: 'deleted (or nothing matched)' }, ...errors },
});

export const viewRoute = createRoute({
  method: 'get',
  path: '/api/v1/context/view',
  tags,
  summary: 'Visible records, documents and chunks (scope context:read)',
  request: { query: ViewQuery },
  responses: { 200: json(ViewResponse, 'a page of records'), ...errors },
});

export const viewDocsRoute = createRoute({
  method: 'get',
  path: '/api/v1/context/view/docs',
  tags,
  summary: 'One summary per visible document (scope context:read)',
  request: { query: ViewQuery },
  responses: {
    200: json(ViewDocsResponse, 'a page of documents'),
    402: json(ContextError, "token 'sub' is not a usable user id"),
    ...errors,
  },
});

/** Every context route, for the document of a runtime that does not serve them (the AWS docs function). */
export const contextRoutes = [addRoute, searchRoute, deleteRoute, viewRoute, viewDocsRoute];
