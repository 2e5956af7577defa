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
    allowMethods: ['GET', 'POST'],
    allowHeaders: ['authorization', 'content-type'],
  },
});

export const contextFunctions = Object.fromEntries(
  Object.entries(contextRoutes).map(([route, { bundle, id, memory }]) => {
    const fn = lambda(id, { bundle, memory, timeout: '29 seconds', secrets: [...CONTEXT_SECRETS] });
    api.route(route, fn.arn);
    return [route, fn];
  }),
);
