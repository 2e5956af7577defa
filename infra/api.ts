import { CORS_RULES } from '../packages/http/src/cors/index.ts';
import { lambda } from './functions.ts';

// Search, add and view embed text; delete talks to Pinecone too. None needs the default model's key.
const CONTEXT_SECRETS = ['pineconeApiKey', 'embeddingsApiKey', 'authJwtSecret'] as const;

/** Spec 4.1: one function per context endpoint (API Gateway's integration timeout is 30 s). */
export const contextRoutes = {
  'POST /api/v1/context/add': { bundle: 'context-add', id: 'ContextAdd', memory: '1024 MB' },
  'POST /api/v1/context/search': { bundle: 'context-search', id: 'ContextSearch', memory: '1024 MB' },
  'POST /api/v1/context/delete': { bundle: 'context-delete', id: 'ContextDelete', memory: '512 MB' },
  'GET /api/v1/context/view': { bundle: 'context-view', id: 'ContextView', memory: '512 MB' },
  'GET /api/v1/context/view/docs': { bundle: 'context-view-docs', id: 'ContextViewDocs', memory: '512 MB' },
} as const;

export const api = new sst.aws.ApiGatewayV2('Api', {
  cors: {
    allowOrigins: ['*'],
    allowMethods: CORS_RULES.context.allowMethods,
    allowHeaders: CORS_RULES.context.allowHeaders,
  },
});

/**
 * Every method of a context path goes to its function, so a wrong method gets the function's 405 with `Allow` in
 * the context envelope, as locally (API Gateway's own answer for an unrouted method is a bare 404). Each method is
 * routed by name rather than with `ANY`: a route matching OPTIONS could take a browser's preflight away from API
 * Gateway's CORS answer and to the function, which would refuse it. With no OPTIONS route, API Gateway answers
 * preflights itself, as it did when only the right method was routed.
 */
export const ROUTED_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD'] as const;

export const contextFunctions = Object.fromEntries(
  Object.entries(contextRoutes).map(([route, { bundle, id, memory }]) => {
    const fn = lambda(id, { bundle, memory, timeout: '29 seconds', secrets: [...CONTEXT_SECRETS] });
    const path = route.slice(route.indexOf(' ') + 1);
    for (const method of ROUTED_METHODS) api.route(`${method} ${path}`, fn.arn);
    return [route, fn];
  }),
);
